#include "harness/slot.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "harness/status_macros.h"
#include "harness/wait.h"

namespace outboxd::it {

std::string FormatLsn(int64_t position) {
  const auto value = static_cast<uint64_t>(position);
  return absl::StrFormat("%X/%X", value >> 32, value & 0xFFFFFFFFu);
}

absl::StatusOr<int64_t> CurrentWalPosition(PgClient& pg) {
  return pg.QueryInt("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')");
}

absl::StatusOr<std::optional<int64_t>> SlotConfirmedPosition(PgClient& pg,
                                                             const std::string& slot) {
  IT_ASSIGN_OR_RETURN(std::optional<std::string> text,
                      pg.QueryOptional("SELECT pg_wal_lsn_diff(confirmed_flush_lsn, '0/0') "
                                       "FROM pg_replication_slots WHERE slot_name = $1",
                                       {slot}));
  if (!text.has_value()) return std::optional<int64_t>();
  int64_t position = 0;
  if (!absl::SimpleAtoi(*text, &position)) {
    return absl::InternalError(absl::StrCat("bad confirmed_flush_lsn diff: ", *text));
  }
  return std::optional<int64_t>(position);
}

bool WaitForSlotConfirmed(PgClient& pg, const std::string& slot, int64_t position,
                          absl::Duration timeout) {
  return WaitUntil(
      [&] {
        absl::StatusOr<std::optional<int64_t>> c = SlotConfirmedPosition(pg, slot);
        return c.ok() && c->has_value() && **c >= position;
      },
      timeout, absl::Milliseconds(50));
}

absl::Status WaitForSlotStreaming(PgClient& pg, const std::string& slot,
                                  const std::string& publication, absl::Duration timeout) {
  return WaitUntilOk(
      [&]() -> absl::StatusOr<bool> {
        IT_ASSIGN_OR_RETURN(
            int64_t ready,
            pg.QueryInt("SELECT count(*) FROM pg_replication_slots s, pg_publication p "
                        "WHERE s.slot_name = $1 AND p.pubname = $2 AND s.plugin = 'pgoutput' "
                        "AND s.confirmed_flush_lsn IS NOT NULL AND s.active_pid IS NOT NULL",
                        {slot, publication}));
        return ready == 1;
      },
      timeout,
      absl::StrCat("outboxd to create publication ", publication, " and stream slot ", slot));
}

absl::Status DropSlotIfExists(PgClient& admin, const std::string& slot, absl::Duration timeout) {
  absl::Status last = absl::OkStatus();
  const bool dropped = WaitUntil(
      [&] {
        absl::StatusOr<std::vector<PgRow>> rows =
            admin.Query("SELECT active_pid FROM pg_replication_slots WHERE slot_name = $1", {slot});
        if (!rows.ok()) {
          last = rows.status();
          return false;
        }
        if (rows->empty()) return true;
        const std::optional<std::string>& pid = rows->front().front();
        if (pid.has_value()) {
          last = admin.Query("SELECT pg_terminate_backend($1::int)", {*pid}).status();
          return false;
        }
        last = admin.Query("SELECT pg_drop_replication_slot($1)", {slot}).status();
        // Lost a race with a walsender that took the slot again, or with another drop.
        return last.ok() || absl::StrContains(last.message(), "does not exist");
      },
      timeout, absl::Milliseconds(100));
  if (dropped) return absl::OkStatus();
  return absl::DeadlineExceededError(
      absl::StrCat("could not drop replication slot ", slot, ": ", last.ToString()));
}

}  // namespace outboxd::it
