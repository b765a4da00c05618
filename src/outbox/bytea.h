#pragma once
// Decoding of bytea's text form, which is how pgoutput sends bytea when binary mode is off.

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace outboxd::outbox {

// Postgres' type OID for bytea (pg_type.oid); its text form is "\x" + hex (bytea_output=hex).
inline constexpr uint32_t kByteaOid = 17;

// Replaces `out` with the bytes of `text`, a bytea in hex output format ("\x48690a"). Like
// Postgres' byteain, accepts either case and skips whitespace between digit pairs. Returns
// InvalidArgument with a reason fit for a dead-letter header when `text` is not that format
// (e.g. bytea_output=escape on the server). Reuses `out`'s capacity.
absl::Status DecodeByteaHex(std::string_view text, std::string& out);

}  // namespace outboxd::outbox
