#pragma once
// Bridges between absl::Status and std::string_view. Debian's abseil is built with its own
// absl::string_view (ABSL_OPTION_USE_STD_STRING_VIEW 0), so the two do not convert implicitly.
// Also carries Postgres's SQLSTATE on a Status, so callers match the code, never the message
// text, which the server translates per lc_messages.

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/cord.h"

namespace outboxd {

inline std::string_view MessageOf(const absl::Status& status) {
  const auto m = status.message();
  return {m.data(), m.size()};
}

// The payload type URL under which SetSqlState stores the five-character SQLSTATE.
inline constexpr char kSqlStatePayload[] = "outboxd/postgres-sqlstate";

// Records `sqlstate` (e.g. "42710") on `status`; a no-op on an OK status (absl drops payloads
// there).
inline void SetSqlState(absl::Status& status, std::string_view sqlstate) {
  status.SetPayload(kSqlStatePayload,
                    absl::Cord(absl::string_view(sqlstate.data(), sqlstate.size())));
}

// The SQLSTATE recorded by SetSqlState, or "" when `status` carries none (OK, or not a server
// error).
inline std::string SqlStateOf(const absl::Status& status) {
  const auto sqlstate = status.GetPayload(kSqlStatePayload);  // absl::optional on Debian.
  return sqlstate ? std::string(*sqlstate) : std::string();
}

// Same code and payloads (the SQLSTATE among them), message prefixed with `context` and ": ".
inline absl::Status Annotate(const absl::Status& status, std::string_view context) {
  std::string text(context);
  text.append(": ").append(MessageOf(status));
  absl::Status annotated(status.code(), text);
  status.ForEachPayload([&annotated](absl::string_view type_url, const absl::Cord& payload) {
    annotated.SetPayload(type_url, payload);
  });
  return annotated;
}

}  // namespace outboxd
