#pragma once
// Replication slot and WAL position queries, and clean-up so no test's slot pins WAL.
// Positions are bytes since 0/0 (pg_wal_lsn_diff(lsn, '0/0')), so they compare as integers.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "harness/pg_client.h"

namespace outboxd::it {

// "16/B374D848" for a position, as Postgres prints an LSN.
std::string FormatLsn(int64_t position);

// pg_current_wal_lsn() as a position.
absl::StatusOr<int64_t> CurrentWalPosition(PgClient& pg);

// The slot's confirmed_flush_lsn; nullopt when the slot does not exist or has none yet.
absl::StatusOr<std::optional<int64_t>> SlotConfirmedPosition(PgClient& pg, const std::string& slot);

// Waits up to `timeout` until the slot's confirmed_flush_lsn reaches `position` (e.g. the WAL end
// after the last commit: then Kafka acknowledged everything before it); false on timeout.
bool WaitForSlotConfirmed(PgClient& pg, const std::string& slot, int64_t position,
                          absl::Duration timeout);

// Waits until outboxd is ready to capture rows: the publication exists and the slot exists,
// is consistent (confirmed_flush_lsn set) and held by a walsender. Rows committed after this
// returns are in the slot's stream.
absl::Status WaitForSlotStreaming(PgClient& pg, const std::string& slot,
                                  const std::string& publication, absl::Duration timeout);

// Terminates the walsender holding `slot` (if any) and drops the slot. OK if it is gone.
absl::Status DropSlotIfExists(PgClient& admin, const std::string& slot, absl::Duration timeout);

}  // namespace outboxd::it
