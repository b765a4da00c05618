#include "config/toml_guard.h"

#include <cstdint>

namespace outboxd::config::internal {
namespace {

// Mirrors toml++'s is_non_ascii_horizontal_whitespace lookup: true exactly where it would reach
// its unreachable branch.
bool HitsTomlUnreachable(char32_t c) {
  if (c < U'\xA0' || c > U'\uFEFF') return false;
  if (c == U'\xA0' || c == U'\u3000' || c == U'\uFEFF') return false;
  const uint64_t child = (static_cast<uint64_t>(c) - 0xA0) / 0x3FA;
  if ((uint64_t{1} << child) & 0x7FFFFFFFFFFFF75Eull) return false;
  return child != 5 && child != 7;
}

bool IsContinuation(uint8_t byte) { return (byte & 0xC0) == 0x80; }

}  // namespace

std::optional<UnsafeCodePoint> FindTomlUnsafeCodePoint(std::string_view text) {
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(text[i]); };
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    char32_t c = 0;
    if ((byte(i) & 0xE0) == 0xC0 && IsContinuation(byte(i + 1))) {
      c = static_cast<char32_t>((byte(i) & 0x1F) << 6 | (byte(i + 1) & 0x3F));
    } else if ((byte(i) & 0xF0) == 0xE0 && i + 2 < text.size() && IsContinuation(byte(i + 1)) &&
               IsContinuation(byte(i + 2))) {
      c = static_cast<char32_t>((byte(i) & 0x0F) << 12 | (byte(i + 1) & 0x3F) << 6 |
                                (byte(i + 2) & 0x3F));
    }
    if (HitsTomlUnreachable(c)) return UnsafeCodePoint{c, i};
  }
  return std::nullopt;
}

}  // namespace outboxd::config::internal
