#include "common/types.h"

#include <charconv>

#include "fmt/format.h"

namespace outboxd {

std::string Lsn::ToString() const {
  return fmt::format("{:X}/{:X}", static_cast<uint32_t>(value_ >> 32),
                     static_cast<uint32_t>(value_));
}

std::optional<Lsn> Lsn::Parse(std::string_view text) {
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  uint32_t hi = 0;
  uint32_t lo = 0;
  const char* hi_end = text.data() + slash;
  auto [p1, e1] = std::from_chars(text.data(), hi_end, hi, 16);
  if (e1 != std::errc() || p1 != hi_end || slash == 0) return std::nullopt;
  const char* end = text.data() + text.size();
  auto [p2, e2] = std::from_chars(hi_end + 1, end, lo, 16);
  if (e2 != std::errc() || p2 != end || hi_end + 1 == end) return std::nullopt;
  return Lsn((static_cast<uint64_t>(hi) << 32) | lo);
}

}  // namespace outboxd
