#pragma once
// One row of pg_replication_slots as the WAL guard reads it, and the query that reads it on
// any SQL-capable connection (the slot monitor's ordinary one, or the replication connection
// during set-up). Works on PostgreSQL 14 to 18: wal_status and safe_wal_size exist since 13,
// invalidation_reason is read only from 17 on.

#include <libpq-fe.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/types.h"

namespace outboxd::pg {

struct SlotState {
  bool exists = false;
  // pg_replication_slots.wal_status: "reserved", "extended", "unreserved", "lost"; "" when NULL
  // (the slot reserves no WAL yet).
  std::string wal_status;
  // safe_wal_size: bytes that may still be written before the slot is at risk of losing WAL;
  // nullopt when NULL (max_slot_wal_keep_size = -1, i.e. unlimited, or the slot is lost).
  // Negative once the slot is past the limit.
  std::optional<int64_t> safe_wal_size_bytes;
  // Server WAL position (pg_current_wal_lsn(), or the last received/replayed position on a
  // standby) minus restart_lsn: the WAL the slot keeps. nullopt when restart_lsn is NULL.
  std::optional<int64_t> retained_wal_bytes;
  bool active = false;      // A walsender streams the slot.
  Lsn confirmed_flush_lsn;  // Invalid when NULL.
  Lsn restart_lsn;          // Invalid when NULL (always so once lost).
  // PG 17+: why the slot was invalidated ("wal_removed", "rows_removed", ...); "" otherwise.
  std::string invalidation_reason;
};

// The statement reading `slot` (already quoted as a literal, e.g. by Connection::QuoteLiteral)
// on a server whose PQserverVersion is `server_version`. Returns zero or one row, for
// ParseSlotState.
std::string SlotStateSql(std::string_view slot_literal, int server_version);

// Reads the result of SlotStateSql: exists = false when it has no row. DataLoss when the shape
// or a value is not what the statement returns.
absl::StatusOr<SlotState> ParseSlotState(const PGresult* result);

}  // namespace outboxd::pg
