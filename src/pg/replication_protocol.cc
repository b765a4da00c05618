#include "pg/replication_protocol.h"

#include "absl/status/status.h"
#include "common/status.h"
#include "common/strings.h"
#include "fmt/format.h"

namespace outboxd::pg {
namespace {

constexpr char kXLogDataTag = 'w';
constexpr char kKeepaliveTag = 'k';
constexpr char kStandbyStatusTag = 'r';
constexpr size_t kXLogDataHeader = 1 + 8 + 8 + 8;
constexpr size_t kKeepaliveSize = 1 + 8 + 8 + 1;

uint64_t ReadInt64(std::string_view bytes, size_t at) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) v = (v << 8) | static_cast<uint8_t>(bytes[at + i]);
  return v;
}

void AppendInt64(std::string& out, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>(v >> shift));
}

}  // namespace

absl::StatusOr<CopyMessage> ParseCopyMessage(std::string_view bytes) {
  if (bytes.empty()) return absl::DataLossError("replication stream: empty CopyData message");
  switch (bytes[0]) {
    case kXLogDataTag: {
      if (bytes.size() < kXLogDataHeader) {
        return absl::DataLossError(
            Concat("replication stream: XLogData of ", bytes.size(), " bytes is truncated"));
      }
      return XLogData{.wal_start = Lsn(ReadInt64(bytes, 1)),
                      .wal_end = Lsn(ReadInt64(bytes, 9)),
                      .send_time_us = static_cast<int64_t>(ReadInt64(bytes, 17)),
                      .data = bytes.substr(kXLogDataHeader)};
    }
    case kKeepaliveTag: {
      if (bytes.size() != kKeepaliveSize) {
        return absl::DataLossError(Concat("replication stream: keepalive of ", bytes.size(),
                                          " bytes, expected ", kKeepaliveSize));
      }
      return Keepalive{.wal_end = Lsn(ReadInt64(bytes, 1)),
                       .send_time_us = static_cast<int64_t>(ReadInt64(bytes, 9)),
                       .reply_requested = bytes[17] != 0};
    }
    default:
      return absl::DataLossError(fmt::format("replication stream: unknown CopyData tag 0x{:02x}",
                                             static_cast<uint8_t>(bytes[0])));
  }
}

std::string EncodeStandbyStatus(Lsn written, Lsn flushed, int64_t now_us, bool reply_requested) {
  std::string out;
  out.reserve(1 + 8 * 4 + 1);
  out.push_back(kStandbyStatusTag);
  AppendInt64(out, written.value());  // Last WAL byte + 1 received.
  AppendInt64(out, flushed.value());  // Last WAL byte + 1 flushed: the slot may release before it.
  AppendInt64(out, flushed.value());  // Last WAL byte + 1 applied.
  AppendInt64(out, static_cast<uint64_t>(now_us));
  out.push_back(reply_requested ? 1 : 0);
  return out;
}

}  // namespace outboxd::pg
