#include "pg/slot_state.h"

#include <charconv>

#include "absl/status/status.h"
#include "common/strings.h"
#include "pg/connection.h"

namespace outboxd::pg {
namespace {

// Column order of SlotStateSql.
enum Column {
  kWalStatus,
  kSafeWalSize,
  kActive,
  kConfirmedFlush,
  kRestart,
  kRetained,
  kInvalidationReason,
  kColumns
};

absl::StatusOr<std::optional<int64_t>> OptionalInt(const PGresult* r, int col) {
  if (PQgetisnull(r, 0, col)) return std::optional<int64_t>();
  const std::string_view text = Value(r, 0, col);
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return absl::DataLossError(Concat("pg_replication_slots: '", text, "' in column ",
                                      PQfname(r, col), " is not an integer"));
  }
  return std::optional<int64_t>(value);
}

absl::StatusOr<Lsn> OptionalLsn(const PGresult* r, int col) {
  if (PQgetisnull(r, 0, col)) return Lsn();
  std::optional<Lsn> lsn = Lsn::Parse(Value(r, 0, col));
  if (!lsn) {
    return absl::DataLossError(Concat("pg_replication_slots: '", Value(r, 0, col), "' in column ",
                                      PQfname(r, col), " is not an LSN"));
  }
  return *lsn;
}

}  // namespace

std::string SlotStateSql(std::string_view slot_literal, int server_version) {
  // A standby has no pg_current_wal_lsn(); there the WAL it has received (or, in archive
  // recovery, replayed) is what the slot holds back. CASE evaluates only the branch taken.
  const std::string_view reason = server_version >= 170000 ? "s.invalidation_reason" : "NULL";
  return Concat(
      "SELECT s.wal_status, s.safe_wal_size, s.active, s.confirmed_flush_lsn, s.restart_lsn, "
      "pg_catalog.pg_wal_lsn_diff(w.lsn, s.restart_lsn)::bigint, ",
      reason,
      " FROM pg_catalog.pg_replication_slots s, (SELECT CASE WHEN pg_catalog.pg_is_in_recovery() "
      "THEN COALESCE(pg_catalog.pg_last_wal_receive_lsn(), pg_catalog.pg_last_wal_replay_lsn()) "
      "ELSE pg_catalog.pg_current_wal_lsn() END AS lsn) w WHERE s.slot_name = ",
      slot_literal);
}

absl::StatusOr<SlotState> ParseSlotState(const PGresult* r) {
  if (PQnfields(r) != kColumns || PQntuples(r) > 1) {
    return absl::DataLossError("pg_replication_slots: unexpected result shape");
  }
  SlotState state;
  if (PQntuples(r) == 0) return state;
  state.exists = true;
  state.wal_status = std::string(Value(r, 0, kWalStatus));
  auto safe = OptionalInt(r, kSafeWalSize);
  if (!safe.ok()) return safe.status();
  state.safe_wal_size_bytes = *safe;
  auto retained = OptionalInt(r, kRetained);
  if (!retained.ok()) return retained.status();
  state.retained_wal_bytes = *retained;
  state.active = Value(r, 0, kActive) == "t";
  auto confirmed = OptionalLsn(r, kConfirmedFlush);
  if (!confirmed.ok()) return confirmed.status();
  state.confirmed_flush_lsn = *confirmed;
  auto restart = OptionalLsn(r, kRestart);
  if (!restart.ok()) return restart.status();
  state.restart_lsn = *restart;
  state.invalidation_reason = std::string(Value(r, 0, kInvalidationReason));
  return state;
}

}  // namespace outboxd::pg
