#include "config/section_reader.h"

#include <algorithm>

#include "fmt/format.h"
#include "fmt/ranges.h"

namespace outboxd::config::internal {

std::string_view TypeName(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::none:
      return "nothing";
    case toml::node_type::table:
      return "table";
    case toml::node_type::array:
      return "array";
    case toml::node_type::string:
      return "string";
    case toml::node_type::integer:
      return "integer";
    case toml::node_type::floating_point:
      return "float";
    case toml::node_type::boolean:
      return "boolean";
    case toml::node_type::date:
      return "date";
    case toml::node_type::time:
      return "time";
    case toml::node_type::date_time:
      return "date-time";
  }
  return "unknown";
}

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t pos = text.find(separator); pos != std::string_view::npos;
       pos = text.find(separator, start)) {
    parts.push_back(text.substr(start, pos - start));
    start = pos + 1;
  }
  parts.push_back(text.substr(start));
  return parts;
}

size_t EditDistance(std::string_view a, std::string_view b) {
  // One row of the classic dynamic programme; keys are short, so this is cheap.
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      const size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitute});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string Suggestion(std::string_view unknown, absl::Span<const std::string_view> known) {
  std::string_view best;
  size_t best_distance = SIZE_MAX;
  for (std::string_view candidate : known) {
    const size_t d = EditDistance(unknown, candidate);
    if (d < best_distance) {
      best = candidate;
      best_distance = d;
    }
  }
  // Past about half the word a "did you mean" is noise; list the choices instead.
  if (best_distance <= std::max<size_t>(2, unknown.size() / 2)) {
    return fmt::format("; did you mean \"{}\"?", best);
  }
  return fmt::format("; known keys are {}", fmt::join(known, ", "));
}

bool IsOtherSpelling(std::string_view text, std::string_view name) {
  if (text == name || text.size() != name.size()) return false;
  auto fold = [](char c) {
    if (c == '-') return '_';
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  };
  return std::equal(text.begin(), text.end(), name.begin(),
                    [&](char a, char b) { return fold(a) == fold(b); });
}

std::string Where(std::string_view source, const toml::node* node) {
  if (node == nullptr || node->source().begin.line == 0) return fmt::format("{}: ", source);
  return fmt::format("{}:{}: ", source, node->source().begin.line);
}

absl::Status SectionReader::CheckKnownKeys(absl::Span<const std::string_view> known) const {
  if (table_ == nullptr) return absl::OkStatus();
  for (const auto& [key, node] : *table_) {
    if (std::find(known.begin(), known.end(), key.str()) != known.end()) continue;
    return absl::InvalidArgumentError(fmt::format("{}unknown key [{}] {}{}", Where(source_, &node),
                                                  section_, key.str(),
                                                  Suggestion(key.str(), known)));
  }
  return absl::OkStatus();
}

const toml::node* SectionReader::Find(std::string_view key) const {
  return table_ == nullptr ? nullptr : table_->get(key);
}

absl::Status SectionReader::Missing(std::string_view key, std::string_view example) const {
  return absl::InvalidArgumentError(
      fmt::format("{}: [{}] {} is missing; add {}", source_, section_, key, example));
}

absl::Status SectionReader::Error(std::string_view key, std::string_view problem,
                                  std::string_view fix) const {
  return ErrorAt(Find(key), key, problem, fix);
}

void SectionReader::Warn(std::string_view key, std::string_view text) const {
  if (warnings_ == nullptr) return;
  warnings_->push_back(fmt::format("{}[{}] {} {}", Where(source_, Find(key)), section_, key, text));
}

absl::Status SectionReader::ErrorAt(const toml::node* node, std::string_view key,
                                    std::string_view problem, std::string_view fix) const {
  return absl::InvalidArgumentError(
      fmt::format("{}[{}] {} {}; {}", Where(source_, node), section_, key, problem, fix));
}

absl::Status SectionReader::WrongType(std::string_view key, std::string_view expected,
                                      std::string_view example) const {
  return Error(key, fmt::format("must be {}, got {}", expected, TypeName(*Find(key))),
               fmt::format("write {}", example));
}

absl::Status SectionReader::ReadString(std::string_view key, std::string_view example,
                                       std::string& out) const {
  const toml::node* node = Find(key);
  if (node == nullptr) return absl::OkStatus();
  if (!node->is_string()) return WrongType(key, "a string", example);
  out = node->as_string()->get();
  return absl::OkStatus();
}

absl::Status SectionReader::ReadBool(std::string_view key, std::string_view example,
                                     bool& out) const {
  const toml::node* node = Find(key);
  if (node == nullptr) return absl::OkStatus();
  if (!node->is_boolean()) return WrongType(key, "true or false", example);
  out = node->as_boolean()->get();
  return absl::OkStatus();
}

absl::Status SectionReader::ReadInt(std::string_view key, std::string_view example, int64_t min,
                                    int64_t max, int32_t& out) const {
  const toml::node* node = Find(key);
  if (node == nullptr) return absl::OkStatus();
  if (!node->is_integer()) return WrongType(key, "an integer", example);
  const int64_t value = node->as_integer()->get();
  if (value < min || value > max) {
    return Error(key, fmt::format("must be between {} and {}, got {}", min, max, value),
                 fmt::format("write for example {}", example));
  }
  out = static_cast<int32_t>(value);
  return absl::OkStatus();
}

absl::Status SectionReader::ReadStringArray(std::string_view key, std::string_view example,
                                            std::vector<std::string>& out, bool& present) const {
  const toml::node* node = Find(key);
  present = node != nullptr;
  if (node == nullptr) return absl::OkStatus();
  if (!node->is_array()) return WrongType(key, "an array of strings", example);
  std::vector<std::string> values;
  for (const toml::node& element : *node->as_array()) {
    if (!element.is_string()) {
      return ErrorAt(
          &element, key,
          fmt::format("must be an array of strings, got a {} element", TypeName(element)),
          fmt::format("write {}", example));
    }
    values.push_back(element.as_string()->get());
  }
  out = std::move(values);
  return absl::OkStatus();
}

}  // namespace outboxd::config::internal
