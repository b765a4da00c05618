// DESIGN.md invariant 5: when the outbox is idle but the database is busy, the slot's
// confirmed LSN still follows the WAL, so the slot never pins it.

#include <algorithm>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "harness/fixture.h"
#include "harness/slot.h"
#include "harness/status_macros.h"
#include "harness/wait.h"
#include "harness/writer_pool.h"

namespace outboxd::it {
namespace {

constexpr absl::Duration kLoadTime = absl::Seconds(30);
constexpr int kInsertsPerSecond = 300;
// "Close to the WAL end": a few hundred kB, about the last second or two of this load.
constexpr int64_t kMaxFinalLagBytes = 256 * 1024;

class IdleSlotTest : public OutboxdTest {};

TEST_F(IdleSlotTest, BusyDatabaseWithIdleOutboxStillAdvancesTheSlot) {
  const std::string noise = UniqueName("noise");
  DropAtEnd(noise);
  IT_ASSERT_OK(pg().Exec(absl::StrCat("CREATE TABLE public.", QuoteIdent(noise),
                                      " (id bigserial PRIMARY KEY, at timestamptz DEFAULT now(), "
                                      "filler text)")));
  IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * outboxd, StartOutboxd());
  IT_ASSERT_OK_AND_ASSIGN(std::optional<int64_t> slot_start, SlotConfirmedPosition(pg(), slot()));
  ASSERT_TRUE(slot_start.has_value());
  IT_ASSERT_OK_AND_ASSIGN(int64_t wal_start, CurrentWalPosition(pg()));

  // pgbench-like: one autocommitted insert at a time into a table outside the publication.
  std::atomic<int64_t> inserts{0};
  WriterPool writer(env().pg_conninfo, 1, [&](int, PgClient& pg, const std::atomic<bool>& stop) {
    IT_RETURN_IF_ERROR(pg.Exec("SET synchronous_commit = off"));
    const std::string sql = absl::StrCat("INSERT INTO public.", QuoteIdent(noise),
                                         " (filler) VALUES (repeat('x', 100))");
    const absl::Time begin = absl::Now();
    while (!stop && absl::Now() - begin < kLoadTime) {
      IT_RETURN_IF_ERROR(pg.Exec(sql));
      const int64_t n = ++inserts;
      const absl::Time due = begin + n * absl::Seconds(1) / kInsertsPerSecond;
      if (due > absl::Now()) absl::SleepFor(due - absl::Now());
    }
    return absl::OkStatus();
  });

  // Sample the lag once a second while the load runs (reported, the check is at the end).
  int64_t max_lag = 0;
  const absl::Time begin = absl::Now();
  while (absl::Now() - begin < kLoadTime) {
    absl::SleepFor(absl::Seconds(1));
    absl::StatusOr<std::optional<int64_t>> confirmed = SlotConfirmedPosition(pg(), slot());
    absl::StatusOr<int64_t> wal = CurrentWalPosition(pg());
    if (confirmed.ok() && confirmed->has_value() && wal.ok()) {
      max_lag = std::max(max_lag, *wal - **confirmed);
    }
  }
  IT_ASSERT_OK(writer.Join());
  IT_ASSERT_OK_AND_ASSIGN(int64_t wal_end, CurrentWalPosition(pg()));

  // Allow a few status intervals for the last keepalive to be confirmed.
  int64_t confirmed_end = 0;
  const bool caught_up = WaitUntil(
      [&] {
        absl::StatusOr<std::optional<int64_t>> c = SlotConfirmedPosition(pg(), slot());
        if (c.ok() && c->has_value()) confirmed_end = **c;
        return confirmed_end >= wal_end - kMaxFinalLagBytes;
      },
      absl::Seconds(5), absl::Milliseconds(100));
  IT_ASSERT_OK_AND_ASSIGN(int64_t wal_now, CurrentWalPosition(pg()));

  const std::string numbers = absl::StrFormat(
      "%d inserts in %s; WAL %s -> %s (%d kB); confirmed_flush_lsn %s -> %s (moved %d kB); "
      "final lag %d kB behind the WAL end at load stop, %d kB behind now; max lag during load "
      "%d kB",
      inserts.load(), absl::FormatDuration(kLoadTime), FormatLsn(wal_start), FormatLsn(wal_end),
      (wal_end - wal_start) / 1024, FormatLsn(*slot_start), FormatLsn(confirmed_end),
      (confirmed_end - *slot_start) / 1024, (wal_end - confirmed_end) / 1024,
      (wal_now - confirmed_end) / 1024, max_lag / 1024);
  std::cout << "[idle-slot] " << numbers << "\n";

  EXPECT_GT(wal_end - wal_start, 1024 * 1024)
      << "the load should write over 1 MB of WAL; " << numbers;
  EXPECT_TRUE(caught_up) << "the slot's confirmed_flush_lsn should end within "
                         << kMaxFinalLagBytes / 1024 << " kB of the WAL; " << numbers;
  EXPECT_GE(confirmed_end - *slot_start, (wal_end - wal_start) - kMaxFinalLagBytes)
      << "the slot should move with the WAL; " << numbers;
  EXPECT_TRUE(outboxd->Running());
}

}  // namespace
}  // namespace outboxd::it
