#pragma once
// String helpers over std::string_view (Debian's absl::string_view is a distinct type, so
// absl's string functions do not take std::string_view).

#include <charconv>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

#include "fmt/format.h"

namespace outboxd {

// Concatenates the fmt-formattable arguments, like absl::StrCat.
template <typename... Args>
std::string Concat(const Args&... args) {
  std::string out;
  (fmt::format_to(std::back_inserter(out), "{}", args), ...);
  return out;
}

inline bool Contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// The whole of `text` as a base-10 integer; nullopt when it is not one or does not fit `Int`.
template <typename Int>
std::optional<Int> ParseInt(std::string_view text) {
  Int value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

inline std::string_view TrimTrailingSpace(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

}  // namespace outboxd
