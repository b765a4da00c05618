#include "config/topic_router.h"

#include <array>
#include <map>

#include "fmt/format.h"
#include "re2/re2.h"

namespace outboxd::config {
namespace {

// RegexRouter's groups are read into a stack array, so Route needs no scratch state.
constexpr int kMaxGroups = 16;
constexpr std::string_view kAggregateTypeName = "aggregatetype";
constexpr std::string_view kDefaultRegex = "(?<routedByValue>.*)";

bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::string JavaRegexToRe2(std::string_view java_regex) {
  std::string out;
  out.reserve(java_regex.size() + 4);
  for (size_t i = 0; i < java_regex.size(); ++i) {
    const char c = java_regex[i];
    if (c == '\\' && i + 1 < java_regex.size()) {  // An escaped "(" opens no group.
      out.push_back(c);
      out.push_back(java_regex[++i]);
      continue;
    }
    // "(?<" followed by a letter is a named group; "(?<=" and "(?<!" are look-behinds.
    if (java_regex.substr(i, 3) == "(?<" && i + 3 < java_regex.size() &&
        IsAsciiLetter(java_regex[i + 3])) {
      out.append("(?P<");
      i += 2;
      continue;
    }
    out.push_back(c);
  }
  return out;
}

absl::StatusOr<TopicRouter> TopicRouter::Create(std::string_view regex,
                                                std::string_view replacement) {
  RE2::Options options;
  options.set_log_errors(false);
  auto compiled = std::make_shared<const RE2>(JavaRegexToRe2(regex), options);
  if (!compiled->ok()) {
    return absl::InvalidArgumentError(
        fmt::format("does not compile: {} (outboxd uses RE2, which has no look-around or "
                    "backreferences)",
                    compiled->error()));
  }
  TopicRouter router;
  router.groups_ = compiled->NumberOfCapturingGroups() + 1;
  if (router.groups_ > kMaxGroups) {
    return absl::InvalidArgumentError(fmt::format(
        "has {} capturing groups; outboxd allows at most {}", router.groups_ - 1, kMaxGroups - 1));
  }
  const std::map<std::string, int>& named = compiled->NamedCapturingGroups();
  auto literal = [&router](char c) {
    if (router.segments_.empty() || router.segments_.back().group >= 0) {
      router.segments_.push_back({});
    }
    router.segments_.back().literal.push_back(c);
  };
  for (size_t i = 0; i < replacement.size(); ++i) {
    const char c = replacement[i];
    if (c == '\\') {
      if (++i == replacement.size()) {
        return absl::InvalidArgumentError("ends in a lone \\ (write \\\\ for a backslash)");
      }
      literal(replacement[i]);
      continue;
    }
    if (c != '$') {
      literal(c);
      continue;
    }
    if (i + 1 < replacement.size() && replacement[i + 1] == '{') {
      const size_t close = replacement.find('}', i + 2);
      if (close == std::string_view::npos) {
        return absl::InvalidArgumentError("has a ${ without its }");
      }
      const std::string name(replacement.substr(i + 2, close - i - 2));
      auto it = named.find(name);
      if (it != named.end()) {
        router.segments_.push_back({.literal = {}, .group = it->second});
      } else if (name == kAggregateTypeName) {
        router.segments_.push_back({.literal = {}, .group = 0});
      } else {
        return absl::InvalidArgumentError(
            fmt::format("refers to ${{{}}}, which is no named group of the regex", name));
      }
      i = close;
      continue;
    }
    if (i + 1 == replacement.size() || !IsDigit(replacement[i + 1])) {
      return absl::InvalidArgumentError(
          "has a $ that is no group reference; write \\$ for a literal $");
    }
    // Java's rule: the first digit always counts, later ones while the number stays a group.
    int group = replacement[++i] - '0';
    if (group >= router.groups_) {
      return absl::InvalidArgumentError(
          fmt::format("refers to group {}, which the regex lacks", group));
    }
    while (i + 1 < replacement.size() && IsDigit(replacement[i + 1]) &&
           group * 10 + (replacement[i + 1] - '0') < router.groups_) {
      group = group * 10 + (replacement[++i] - '0');
    }
    router.segments_.push_back({.literal = {}, .group = group});
  }
  router.regex_ = std::move(compiled);
  router.whole_value_ = regex == kDefaultRegex;
  return router;
}

void TopicRouter::Route(std::string_view value, std::string& out) const {
  if (whole_value_ && value.find('\n') == std::string_view::npos) {
    for (const Segment& segment : segments_) {
      out.append(segment.group < 0 ? std::string_view(segment.literal) : value);
    }
    return;
  }
  std::array<re2::StringPiece, kMaxGroups> groups;
  const re2::StringPiece text(value.data(), value.size());
  if (!regex_->Match(text, 0, text.size(), RE2::ANCHOR_BOTH, groups.data(), groups_)) {
    out.append(value);
    return;
  }
  for (const Segment& segment : segments_) {
    if (segment.group < 0) {
      out.append(segment.literal);
    } else {
      const re2::StringPiece& g = groups[static_cast<size_t>(segment.group)];
      out.append(g.data() == nullptr ? "" : std::string_view(g.data(), g.size()));
    }
  }
}

bool TopicRouter::fixed() const {
  for (const Segment& segment : segments_) {
    if (segment.group >= 0) return false;
  }
  return true;
}

std::string TopicRouter::literal_text() const {
  std::string text;
  for (const Segment& segment : segments_) text.append(segment.literal);
  return text;
}

}  // namespace outboxd::config
