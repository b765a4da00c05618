#pragma once
// Kafka topic naming rules and the Outbox Event Router's topic pattern, shared by config
// validation (fixed parts, at start-up) and the mapper (rendered names, per row).

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace outboxd::config {

// Kafka's limit (Topic.MAX_NAME_LENGTH) and legal characters [a-zA-Z0-9._-].
inline constexpr size_t kMaxTopicLength = 249;

// Debezium's route.topic.replacement placeholders; both mean "the routing column's value".
inline constexpr std::array<std::string_view, 2> kTopicPlaceholders = {"${aggregatetype}",
                                                                       "${routedByValue}"};

constexpr bool IsLegalTopicChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

// Returns an empty string when Kafka accepts `name` as a topic name, else why it would not,
// e.g. `character '/' is not allowed; use only [a-zA-Z0-9._-]`.
std::string TopicNameProblem(std::string_view name);

// A topic pattern split at its first placeholder. Views point into the pattern string, which
// must outlive this.
struct TopicTemplate {
  std::string_view prefix;  // The whole pattern when there is no placeholder.
  std::string_view suffix;
  bool routed = false;  // A placeholder was found.
  size_t placeholder_count = 0;

  // Appends prefix + routed_value + suffix (or just the pattern) to `out`.
  void Render(std::string_view routed_value, std::string& out) const;
};

TopicTemplate SplitTopicPattern(std::string_view pattern);

}  // namespace outboxd::config
