#pragma once
// Bridges between absl::Status and std::string_view. Debian's abseil is built with its own
// absl::string_view (ABSL_OPTION_USE_STD_STRING_VIEW 0), so the two do not convert implicitly.

#include <string_view>

#include "absl/status/status.h"

namespace outboxd {

inline std::string_view MessageOf(const absl::Status& status) {
  const auto m = status.message();
  return {m.data(), m.size()};
}

// Same code, message prefixed with `context` and ": ".
inline absl::Status Annotate(const absl::Status& status, std::string_view context) {
  std::string text(context);
  text.append(": ").append(MessageOf(status));
  return absl::Status(status.code(), text);
}

}  // namespace outboxd
