#include "outbox/trace_context.h"

#include <algorithm>

namespace outboxd::outbox {
namespace {

bool IsLowerHex(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool AllZeros(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c == '0'; });
}

}  // namespace

bool IsValidTraceparent(std::string_view text) {
  constexpr size_t kSize = 55;  // 2 + 1 + 32 + 1 + 16 + 1 + 2.
  if (text.size() < kSize || text[2] != '-' || text[35] != '-' || text[52] != '-') return false;
  const std::string_view version = text.substr(0, 2);
  const std::string_view trace_id = text.substr(3, 32);
  const std::string_view parent_id = text.substr(36, 16);
  const std::string_view flags = text.substr(53, 2);
  if (!IsLowerHex(version) || !IsLowerHex(trace_id) || !IsLowerHex(parent_id) ||
      !IsLowerHex(flags)) {
    return false;
  }
  if (version == "ff" || AllZeros(trace_id) || AllZeros(parent_id)) return false;
  if (version == "00") return text.size() == kSize;
  return text.size() == kSize || text[kSize] == '-';
}

}  // namespace outboxd::outbox
