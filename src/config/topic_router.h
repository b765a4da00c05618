#pragma once
// The Outbox Event Router's topic routing: Kafka Connect's RegexRouter applied to the routing
// column's value (route.topic.regex, route.topic.replacement), on RE2 instead of
// java.util.regex. Shared by config validation (at start-up) and the mapper (per row).

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace re2 {
class RE2;
}  // namespace re2

namespace outboxd::config {

// Translates the Java regex syntax RE2 spells differently: named groups (?<name>...) become
// (?P<name>...). Other constructs pass unchanged; those RE2 lacks (look-around,
// backreferences, possessive quantifiers) fail to compile in TopicRouter::Create.
std::string JavaRegexToRe2(std::string_view java_regex);

// Immutable after Create; Route is const and safe from several threads (RE2 is).
class TopicRouter {
 public:
  // Compiles `regex` (Java syntax, see JavaRegexToRe2) and parses `replacement` as Java's
  // Matcher.replaceFirst does: $n and ${name} are groups, \x is a literal x. ${aggregatetype}
  // also means the whole value unless the regex names a group so. InvalidArgument names the
  // problem (a regex RE2 rejects, an unknown group, a lone $) for the config error.
  static absl::StatusOr<TopicRouter> Create(std::string_view regex, std::string_view replacement);

  // Appends the topic for `value`: the replacement when the regex matches all of `value`, else
  // `value` itself (RegexRouter leaves the record's topic alone). Allocates nothing beyond
  // `out`'s growth.
  void Route(std::string_view value, std::string& out) const;

  // True when the replacement refers to no group, so every matching value routes to
  // literal_text().
  bool fixed() const;
  // The replacement's literal text with every group reference left out; validation checks
  // its characters.
  std::string literal_text() const;

 private:
  struct Segment {
    std::string literal;  // Used when group < 0.
    int group = -1;
  };
  TopicRouter() = default;

  std::shared_ptr<const re2::RE2> regex_;
  std::vector<Segment> segments_;
  int groups_ = 0;  // Capturing groups in regex_, plus group 0.
  // The regex is Debezium's default "(?<routedByValue>.*)": every value without a line break
  // matches whole, so Route skips RE2 (which may allocate per match).
  bool whole_value_ = false;
};

}  // namespace outboxd::config
