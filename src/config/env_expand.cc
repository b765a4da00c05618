#include "config/env_expand.h"

#include <algorithm>

#include "config/section_reader.h"
#include "fmt/format.h"

namespace outboxd::config::internal {
namespace {

bool IsNameStart(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool IsNameChar(char c) { return IsNameStart(c) || (c >= '0' && c <= '9'); }

absl::Status ExpandNode(toml::node& node, const std::string& key, std::string_view source,
                        const Environment& env);

absl::Status ExpandTable(toml::table& table, const std::string& prefix, std::string_view source,
                         const Environment& env) {
  for (auto&& [k, node] : table) {
    const std::string key =
        prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    if (key == "outbox.topic") continue;  // ${aggregatetype} there is a routing placeholder.
    if (auto s = ExpandNode(node, key, source, env); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status ExpandNode(toml::node& node, const std::string& key, std::string_view source,
                        const Environment& env) {
  if (toml::table* table = node.as_table()) return ExpandTable(*table, key, source, env);
  if (toml::array* array = node.as_array()) {
    for (toml::node& element : *array) {
      if (auto s = ExpandNode(element, key, source, env); !s.ok()) return s;
    }
    return absl::OkStatus();
  }
  toml::value<std::string>* value = node.as_string();
  if (value == nullptr || value->get().find('$') == std::string::npos) return absl::OkStatus();
  // "[postgres] conninfo" from "postgres.conninfo"; [kafka] keys keep their dots.
  const size_t dot = key.find('.');
  const std::string label = dot == std::string::npos
                                ? key
                                : fmt::format("[{}] {}", key.substr(0, dot), key.substr(dot + 1));
  absl::StatusOr<std::string> expanded =
      ExpandReferences(value->get(), Where(source, &node) + label, env);
  if (!expanded.ok()) return expanded.status();
  value->get() = std::move(*expanded);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> ExpandReferences(std::string_view text, std::string_view where,
                                             const Environment& env) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    if (text.substr(i, 3) == "$${") {
      out.append("${");
      i += 3;
      continue;
    }
    if (text.substr(i, 2) != "${") {
      out.push_back(text[i++]);
      continue;
    }
    const size_t close = text.find('}', i + 2);
    const std::string_view name = text.substr(
        i + 2, close == std::string_view::npos ? std::string_view::npos : close - i - 2);
    const bool valid = close != std::string_view::npos && !name.empty() && IsNameStart(name[0]) &&
                       std::all_of(name.begin(), name.end(), IsNameChar);
    if (!valid) {
      return absl::InvalidArgumentError(fmt::format(
          "{} has a malformed environment reference at character {}; write ${{NAME}} with NAME "
          "made of letters, digits and _, or $${{ for a literal ${{",
          where, i + 1));
    }
    std::optional<std::string> value = env ? env(name) : std::nullopt;
    if (!value || value->empty()) {
      return absl::InvalidArgumentError(fmt::format(
          "{} refers to ${{{}}}, but the environment variable {} is {}; set it for outboxd "
          "(e.g. in the systemd unit's EnvironmentFile) or write $${{ for a literal ${{",
          where, name, name, value ? "empty" : "not set"));
    }
    out.append(*value);
    i = close + 1;
  }
  return out;
}

absl::Status ExpandEnvironment(toml::table& root, std::string_view source, const Environment& env) {
  return ExpandTable(root, "", source, env);
}

}  // namespace outboxd::config::internal
