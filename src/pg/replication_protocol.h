#pragma once
// Framing of the streaming replication CopyBoth sub-protocol (PostgreSQL "Streaming Replication
// Protocol"): XLogData and keepalive messages in, standby status updates out. Pure; no I/O.

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "absl/status/statusor.h"
#include "common/types.h"

namespace outboxd::pg {

// 'w': a chunk of decoded WAL; `data` is one pgoutput message.
struct XLogData {
  Lsn wal_start;  // dataStart: WAL position of this message.
  Lsn wal_end;    // walEnd: current end of WAL on the server.
  int64_t send_time_us = 0;
  std::string_view data;  // Points into the CopyData buffer.
};

// 'k': the server's heartbeat; answer at once when `reply_requested`.
struct Keepalive {
  Lsn wal_end;  // walEnd: safe to confirm when nothing is pending (DESIGN.md invariant 5).
  int64_t send_time_us = 0;
  bool reply_requested = false;
};

using CopyMessage = std::variant<XLogData, Keepalive>;

// Parses one CopyData payload from the walsender. DataLoss on unknown tag or bad length.
// The result points into `bytes`, which must outlive it.
absl::StatusOr<CopyMessage> ParseCopyMessage(std::string_view bytes);

// 'r': standby status update. `written` is the newest position received, `flushed` the newest
// position safe to release (outboxd never applies, so apply = flushed).
std::string EncodeStandbyStatus(Lsn written, Lsn flushed, int64_t now_us, bool reply_requested);

}  // namespace outboxd::pg
