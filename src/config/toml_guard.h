#pragma once
// Guards toml++ 3.3.0 (Debian bookworm) against a bug of its own: its whitespace check reaches
// __builtin_unreachable (undefined behaviour) for most code points in U+00A1..U+0499,
// U+2D6E..U+3167 and U+FB26..U+FEFE (upstream marzer/tomlplusplus issues #190 and #295, fixed
// by pull request #305). Config text holding one is refused before toml++ sees it; delete this
// once the packaged toml++ has the fix.

#include <cstddef>
#include <optional>
#include <string_view>

namespace outboxd::config::internal {

struct UnsafeCodePoint {
  char32_t code_point;
  size_t offset;  // Byte offset of its first byte in the text.
};

// The first 2- or 3-byte UTF-8 sequence (overlong forms included, checked at every offset so
// that no resynchronisation choice can hide one) that encodes such a code point.
std::optional<UnsafeCodePoint> FindTomlUnsafeCodePoint(std::string_view text);

}  // namespace outboxd::config::internal
