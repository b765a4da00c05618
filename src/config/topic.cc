#include "config/topic.h"

#include "fmt/format.h"

namespace outboxd::config {

std::string TopicNameProblem(std::string_view name) {
  if (name.empty()) return "it is empty";
  if (name == "." || name == "..") return fmt::format("\"{}\" is reserved", name);
  if (name.size() > kMaxTopicLength) {
    return fmt::format("it is {} characters long; Kafka allows at most {}", name.size(),
                       kMaxTopicLength);
  }
  for (char c : name) {
    if (!IsLegalTopicChar(c)) {
      // Print control and non-ASCII bytes as hex so the reason stays readable in a header.
      const bool printable = c >= ' ' && c < 0x7F;
      return printable ? fmt::format("character '{}' is not allowed; use only [a-zA-Z0-9._-]", c)
                       : fmt::format("byte 0x{:02X} is not allowed; use only [a-zA-Z0-9._-]",
                                     static_cast<unsigned char>(c));
    }
  }
  return "";
}

void TopicTemplate::Render(std::string_view routed_value, std::string& out) const {
  out.append(prefix);
  if (!routed) return;
  out.append(routed_value);
  out.append(suffix);
}

TopicTemplate SplitTopicPattern(std::string_view pattern) {
  TopicTemplate result;
  result.prefix = pattern;
  size_t first = std::string_view::npos;
  size_t first_length = 0;
  // Count every placeholder occurrence so validation can insist on at most one.
  for (size_t pos = 0; pos < pattern.size(); ++pos) {
    for (std::string_view placeholder : kTopicPlaceholders) {
      if (pattern.substr(pos, placeholder.size()) != placeholder) continue;
      if (first == std::string_view::npos) {
        first = pos;
        first_length = placeholder.size();
      }
      ++result.placeholder_count;
    }
  }
  if (first == std::string_view::npos) return result;
  result.routed = true;
  result.prefix = pattern.substr(0, first);
  result.suffix = pattern.substr(first + first_length);
  return result;
}

}  // namespace outboxd::config
