#include "outbox/bytea.h"

#include "fmt/format.h"

namespace outboxd::outbox {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

absl::Status Malformed(std::string_view detail) {
  return absl::InvalidArgumentError(fmt::format("bytea payload is not \\x hex: {}", detail));
}

}  // namespace

absl::Status DecodeByteaHex(std::string_view text, std::string& out) {
  out.clear();
  if (text.size() < 2 || text[0] != '\\' || text[1] != 'x') {
    return Malformed("it does not start with \\x; set bytea_output = 'hex' on the server");
  }
  out.reserve((text.size() - 2) / 2);
  for (size_t i = 2; i < text.size(); ++i) {
    if (IsSpace(text[i])) continue;
    const int high = HexValue(text[i]);
    if (high < 0) return Malformed(fmt::format("invalid hex digit at offset {}", i));
    if (i + 1 == text.size()) return Malformed("odd number of hex digits");
    const int low = HexValue(text[i + 1]);
    if (low < 0) return Malformed(fmt::format("invalid hex digit at offset {}", i + 1));
    out.push_back(static_cast<char>((high << 4) | low));
    ++i;
  }
  return absl::OkStatus();
}

}  // namespace outboxd::outbox
