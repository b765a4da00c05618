#pragma once
// JSON string literals for log lines and `check --format` style output.

#include <string>
#include <string_view>

namespace outboxd {

// Appends `text` to `out` as a quoted JSON string (RFC 8259): `"` and `\` escaped, control
// characters (U+0000-U+001F, U+007F) as \n, \t, ... or \u00XX, valid UTF-8 kept as is, and
// each byte of an invalid UTF-8 sequence (stray continuation, overlong form, surrogate, above
// U+10FFFF, truncated) replaced by U+FFFD, so the result always parses as JSON.
void AppendJsonString(std::string& out, std::string_view text);

}  // namespace outboxd
