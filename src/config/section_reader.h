#pragma once
// Internal to outboxd_config: typed access to one TOML table that turns every problem into an
// InvalidArgument error naming the file, line, key, problem and fix.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "fmt/format.h"
#include "toml++/toml.h"

namespace outboxd::config::internal {

// "string", "integer", "array", ... for "got <type>" messages.
std::string_view TypeName(const toml::node& node);

// Splits `text` at every `separator` (empty parts kept). absl::StrSplit is avoided on purpose:
// Debian's abseil has its own string_view type, not std::string_view.
std::vector<std::string_view> Split(std::string_view text, char separator);

// Levenshtein distance, for "did you mean" suggestions.
size_t EditDistance(std::string_view a, std::string_view b);

// "; did you mean \"slot\"?" for the closest of `known`, or a list of them when none is close.
std::string Suggestion(std::string_view unknown, absl::Span<const std::string_view> known);

// True when `text` is `name` spelled another way: other letter case, or '-' where `name` has
// '_' (or the reverse), e.g. "At-Least-Once" for "at_least_once". False when they are equal.
bool IsOtherSpelling(std::string_view text, std::string_view name);

// "<source>:<line>: " or "<source>: " when `node` is null or has no position.
std::string Where(std::string_view source, const toml::node* node);

// Reads keys of the table `[section]`. A null table (section absent) reads as empty. `source`,
// `table` and `warnings` (may be null: warnings are dropped) must outlive the reader.
class SectionReader {
 public:
  SectionReader(std::string_view source, std::string_view section, const toml::table* table,
                std::vector<std::string>* warnings = nullptr)
      : source_(source), section_(section), table_(table), warnings_(warnings) {}

  bool Has(std::string_view key) const { return Find(key) != nullptr; }

  // Fails on the first key not in `known`, suggesting the closest known key.
  absl::Status CheckKnownKeys(absl::Span<const std::string_view> known) const;

  // Each Read* leaves `out` untouched when the key is absent. `example` is a correct line such
  // as `slot = "outboxd"`, quoted in the fix of type errors.
  absl::Status ReadString(std::string_view key, std::string_view example, std::string& out) const;
  absl::Status ReadBool(std::string_view key, std::string_view example, bool& out) const;
  absl::Status ReadInt(std::string_view key, std::string_view example, int64_t min, int64_t max,
                       int32_t& out) const;
  // `present` is set to whether the key was found.
  absl::Status ReadStringArray(std::string_view key, std::string_view example,
                               std::vector<std::string>& out, bool& present) const;

  // "<source>: [section] <key> is missing; add <example>".
  absl::Status Missing(std::string_view key, std::string_view example) const;
  // "<source>:<line>: [section] <key> <problem>; <fix>", the line being that of `key`'s value.
  absl::Status Error(std::string_view key, std::string_view problem, std::string_view fix) const;
  // Records "<source>:<line>: [section] <key> <text>" as a warning: accepted, but worth fixing.
  void Warn(std::string_view key, std::string_view text) const;
  // As Error, but positioned at `node` (an array element, say).
  absl::Status ErrorAt(const toml::node* node, std::string_view key, std::string_view problem,
                       std::string_view fix) const;

 private:
  const toml::node* Find(std::string_view key) const;
  absl::Status WrongType(std::string_view key, std::string_view expected,
                         std::string_view example) const;

  std::string_view source_;
  std::string_view section_;
  const toml::table* table_;
  std::vector<std::string>* warnings_;
};

// Reads a string key whose value must be one of `names` and stores the matching enumerator.
// Another spelling of a name (case, '-' for '_') is accepted with a warning naming the right one.
template <typename Enum, size_t N>
absl::Status ReadChoice(const SectionReader& reader, std::string_view key,
                        const std::array<std::pair<std::string_view, Enum>, N>& names, Enum& out) {
  std::string text;
  const std::string example = fmt::format("{} = \"{}\"", key, names[0].first);
  if (auto s = reader.ReadString(key, example, text); !s.ok()) return s;
  if (!reader.Has(key)) return absl::OkStatus();
  std::string choices;
  for (const auto& [name, value] : names) {
    if (name == text) {
      out = value;
      return absl::OkStatus();
    }
    choices.append(choices.empty() ? "" : ", ").append(fmt::format("\"{}\"", name));
  }
  for (const auto& [name, value] : names) {
    if (!IsOtherSpelling(text, name)) continue;
    out = value;
    reader.Warn(key, fmt::format("is \"{}\", read as \"{}\": write \"{}\"", text, name, name));
    return absl::OkStatus();
  }
  return reader.Error(key, fmt::format("is \"{}\", which is not a choice", text),
                      fmt::format("write one of {}", choices));
}

}  // namespace outboxd::config::internal
