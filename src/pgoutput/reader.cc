#include "pgoutput/reader.h"

#include <cstring>

#include "fmt/format.h"

namespace outboxd::pgoutput::internal {

std::string Field::ToString() const {
  std::string out(prefix);
  if (!out.empty()) out += ' ';
  out += name;
  if (index >= 0) out += fmt::format(" {}", index);
  if (!suffix.empty()) out += fmt::format(" {}", suffix);
  return out;
}

void WireReader::Fail(std::string_view detail) {
  if (!status_.ok()) return;  // The first error is the one that explains the others.
  status_ = absl::DataLossError(fmt::format("pgoutput {}: {}", message_type_, detail));
  rest_ = {};
}

bool WireReader::Require(size_t n, const Field& field) {
  if (!status_.ok()) return false;
  if (n <= rest_.size()) return true;
  Fail(fmt::format("truncated {} (need {} bytes, have {})", field.ToString(), n, rest_.size()));
  return false;
}

size_t WireReader::Length(const Field& field) {
  const auto length = static_cast<int32_t>(Int32(field));
  if (length < 0) {
    Fail(fmt::format("negative {} {}", field.ToString(), length));
    return 0;
  }
  return static_cast<size_t>(length);
}

std::string_view WireReader::CString(const Field& field) {
  if (!status_.ok()) return {};
  // memchr on an empty view may get a null pointer, which is undefined even for length 0.
  const void* nul = rest_.empty() ? nullptr : std::memchr(rest_.data(), '\0', rest_.size());
  if (nul == nullptr) {
    Fail(fmt::format("unterminated {} (no NUL in {} remaining bytes)", field.ToString(),
                     rest_.size()));
    return {};
  }
  const size_t length = static_cast<size_t>(static_cast<const char*>(nul) - rest_.data());
  std::string_view value = rest_.substr(0, length);
  rest_.remove_prefix(length + 1);
  return value;
}

std::string_view WireReader::Bytes(size_t n, const Field& field) {
  if (!Require(n, field)) return {};
  std::string_view value = rest_.substr(0, n);
  rest_.remove_prefix(n);
  return value;
}

absl::Status WireReader::Finish() {
  if (status_.ok() && !rest_.empty()) {
    Fail(fmt::format("{} trailing bytes after the message", rest_.size()));
  }
  return status_;
}

}  // namespace outboxd::pgoutput::internal
