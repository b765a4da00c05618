// The WAL-safety guard against a real server with a small max_slot_wal_keep_size (1 MB WAL
// segments, a 16 MB budget, so the whole story takes a few MB of WAL):
//  1. A transaction left open pins the slot's restart_lsn while outboxd keeps running and
//     confirming, so safe_wal_size falls under min_safe_wal_size_mb before anything is lost:
//     outboxd warns (and reports not ready) from a live process.
//  2. The pin ends: the slot recovers, outboxd says so.
//  3. outboxd is paused (SIGSTOP) while WAL is written and checkpoints run until Postgres
//     invalidates the slot; resumed (SIGCONT), it exits 6 saying what was lost and what to do.
//  4. Started again against the lost slot, it exits 6 at once with the same message, and the
//     slot is still the same lost slot: never recreated at "now".

#include <signal.h>

#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/log_tail.h"
#include "harness/outbox_writer.h"
#include "harness/pg_client.h"
#include "harness/slot.h"
#include "harness/status_client.h"
#include "harness/status_macros.h"
#include "harness/wait.h"
#include "pg/connection.h"
#include "pg/replication_stream.h"
#include "support/dedicated_cluster.h"
#include "support/faults_fixture.h"

namespace outboxd::faults {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr int64_t kMiB = 1 << 20;
constexpr int kMinSafeMb = 8;  // outboxd's threshold, half the 16 MB budget.

struct SlotRow {
  std::string wal_status;
  std::optional<int64_t> safe_wal_size;
  std::string confirmed_flush_lsn;
};

class WalGuardTest : public FaultsTest {
 protected:
  void SetUp() override {
    FaultsTest::SetUp();
    if (HasFatalFailure()) return;
    IT_ASSERT_OK_AND_ASSIGN(cluster_,
                            DedicatedCluster::Start(env().scripts_dir, "--wal-segsize=1"));
    IT_ASSERT_OK_AND_ASSIGN(it::PgClient pg, it::PgClient::Connect(cluster_->conninfo()));
    IT_ASSERT_OK(it::CreateOutboxTable(pg, table()));
    IT_ASSERT_OK_AND_ASSIGN(it::PgClient admin, it::PgClient::Connect(cluster_->admin_conninfo()));
    admin_ = std::make_unique<it::PgClient>(std::move(admin));
    // Reserved up to max_wal_size (4 MB), extended up to the 16 MB budget; checkpoints only
    // when WAL volume calls for one or the test asks.
    for (const char* sql :
         {"ALTER SYSTEM SET max_slot_wal_keep_size = '16MB'",
          "ALTER SYSTEM SET max_wal_size = '4MB'", "ALTER SYSTEM SET min_wal_size = '2MB'",
          "ALTER SYSTEM SET wal_keep_size = 0", "ALTER SYSTEM SET checkpoint_timeout = '1h'",
          "SELECT pg_reload_conf()", "CREATE TABLE wal_filler (n int, pad text)"}) {
      IT_ASSERT_OK(admin_->Exec(sql));
    }
    config().pg_conninfo = cluster_->conninfo();
  }

  // With the status server on http_port_ (appended last: ConfigText's extra lines go there).
  std::string GuardConfig() {
    return ConfigText(
        {"slot_check_interval_ms = 200", absl::StrCat("min_safe_wal_size_mb = ", kMinSafeMb)},
        {"[http]", absl::StrCat("listen = \"127.0.0.1:", http_port_, "\"")});
  }

  // Waits until /readyz answers `status`; returns its body.
  absl::StatusOr<std::string> WaitForReadyz(int status) {
    std::string body;
    IT_RETURN_IF_ERROR(it::WaitUntilOk(
        [&]() -> absl::StatusOr<bool> {
          absl::StatusOr<it::HttpAnswer> a = it::HttpGet(http_port_, "/readyz");
          if (!a.ok()) return false;  // Not listening yet.
          body = a->body;
          return a->status == status;
        },
        absl::Seconds(30), absl::StrCat("/readyz to answer ", status)));
    return body;
  }

  absl::StatusOr<SlotRow> ReadSlot() {
    IT_ASSIGN_OR_RETURN(std::vector<it::PgRow> rows,
                        admin_->Query("SELECT wal_status, safe_wal_size, confirmed_flush_lsn "
                                      "FROM pg_replication_slots WHERE slot_name = $1",
                                      {slot()}));
    if (rows.size() != 1) return absl::NotFoundError(absl::StrCat("no slot ", slot()));
    const it::PgRow& r = rows.front();
    return SlotRow{.wal_status = r[0].value_or(""),
                   .safe_wal_size = r[1] ? std::optional<int64_t>(std::stoll(*r[1])) : std::nullopt,
                   .confirmed_flush_lsn = r[2].value_or("")};
  }

  // About 0.5 MB of WAL in a table outside the publication: the walsender decodes it, outboxd
  // gets nothing to publish.
  absl::Status WriteWal() {
    return admin_->Exec(
        "INSERT INTO wal_filler SELECT g, repeat('x', 1000) FROM generate_series(1, 400) g");
  }

  // Writes WAL (then, with `checkpoint`, switches segments and checkpoints) until `done` holds
  // for the slot's row; every distinct wal_status passed through is appended to `statuses`.
  absl::Status WriteWalUntil(const std::function<bool(const SlotRow&)>& done, bool checkpoint,
                             const std::string& what, std::vector<std::string>* statuses) {
    return it::WaitUntilOk(
        [&]() -> absl::StatusOr<bool> {
          IT_RETURN_IF_ERROR(WriteWal());
          if (checkpoint) IT_RETURN_IF_ERROR(admin_->Exec("SELECT pg_switch_wal(); CHECKPOINT"));
          IT_ASSIGN_OR_RETURN(SlotRow row, ReadSlot());
          if (statuses != nullptr && (statuses->empty() || statuses->back() != row.wal_status)) {
            statuses->push_back(row.wal_status);
          }
          return done(row);
        },
        absl::Seconds(120), what, absl::Milliseconds(0));
  }

  // The text after "ERROR " of the last error line of `log` that contains `needle`.
  static std::string ErrorLine(const std::string& log, const std::string& needle) {
    std::string found;
    size_t at = 0;
    while ((at = log.find(needle, at)) != std::string::npos) {
      const size_t start = log.rfind('\n', at) == std::string::npos ? 0 : log.rfind('\n', at) + 1;
      const size_t end = log.find('\n', at);
      const std::string line = log.substr(start, end - start);
      const size_t level = line.find(" ERROR ");
      if (level != std::string::npos) found = line.substr(level + 7);
      at = end == std::string::npos ? log.size() : end;
    }
    return found;
  }

  absl::Status WaitForLog(const it::OutboxdProcess& process, const std::string& needle) {
    return it::WaitUntilOk(
        [&]() -> absl::StatusOr<bool> {
          return it::CountLinesContaining(process.log_path(), needle) > 0;
        },
        absl::Seconds(30), absl::StrCat("outboxd to log \"", needle, "\""));
  }

  std::unique_ptr<DedicatedCluster> cluster_;
  std::unique_ptr<it::PgClient> admin_;
  int http_port_ = it::FreeLocalPort().value_or(0);
};

TEST_F(WalGuardTest, WarnsAndTurnsUnreadyBeforeTheSlotIsLostThenExits6AndNeverRecreatesIt) {
  IT_ASSERT_OK_AND_ASSIGN(it::OutboxdProcess * outboxd, Launch(GuardConfig()));
  IT_ASSERT_OK_AND_ASSIGN(it::PgClient cluster_pg, it::PgClient::Connect(cluster_->conninfo()));
  IT_ASSERT_OK(it::WaitForSlotStreaming(cluster_pg, slot(), publication(), absl::Seconds(60)));
  IT_ASSERT_OK(WaitForReadyz(200).status());

  // 1. Pin restart_lsn with an open transaction that wrote, then write WAL until the slot is
  // within the threshold of its budget (but still far from losing anything).
  IT_ASSERT_OK_AND_ASSIGN(it::PgClient pin, it::PgClient::Connect(cluster_->admin_conninfo()));
  IT_ASSERT_OK(pin.Exec("BEGIN; INSERT INTO wal_filler VALUES (0, 'pin')"));
  std::vector<std::string> statuses;
  IT_ASSERT_OK(WriteWalUntil(
      [](const SlotRow& row) {
        return row.safe_wal_size && *row.safe_wal_size < (kMinSafeMb - 1) * kMiB;
      },
      /*checkpoint=*/false, "safe_wal_size to drop below the threshold", &statuses));
  IT_ASSERT_OK_AND_ASSIGN(SlotRow at_risk, ReadSlot());
  std::cout << "[slot at risk] wal_status " << at_risk.wal_status << ", safe_wal_size "
            << *at_risk.safe_wal_size << " B; statuses seen: " << testing::PrintToString(statuses)
            << "\n";
  EXPECT_EQ(statuses.front(), "reserved");
  EXPECT_EQ(at_risk.wal_status, "extended");
  EXPECT_GT(*at_risk.safe_wal_size, 0) << "the slot must still be intact here";

  IT_EXPECT_OK(WaitForLog(*outboxd, "is at risk of losing WAL"));
  ASSERT_TRUE(outboxd->Running()) << "outboxd must report this while it still runs";
  // Not ready, naming the slot, while nothing is lost yet.
  IT_ASSERT_OK_AND_ASSIGN(std::string unready, WaitForReadyz(503));
  std::cout << "[slot at risk] /readyz 503 " << unready << "\n";
  EXPECT_THAT(unready, HasSubstr("\"slot\":{\"ok\":false"));
  IT_ASSERT_OK_AND_ASSIGN(it::HttpAnswer page, it::HttpGet(http_port_, "/metrics"));
  IT_ASSERT_OK_AND_ASSIGN(auto samples, it::ParseSamples(page.body));
  EXPECT_EQ(samples[absl::StrCat("outboxd_slot_wal_status{slot=\"", slot(),
                                 "\",wal_status=\"extended\"}")],
            1);
  EXPECT_LT(samples[it::SlotSample("outboxd_slot_safe_wal_size_bytes", slot())], kMinSafeMb * kMiB);
  IT_ASSERT_OK_AND_ASSIGN(SlotRow still, ReadSlot());
  EXPECT_NE(still.wal_status, "lost");

  // 2. The pin ends and a checkpoint lets restart_lsn move on: the slot recovers.
  IT_ASSERT_OK(pin.Exec("COMMIT"));
  IT_ASSERT_OK(admin_->Exec("CHECKPOINT"));
  IT_EXPECT_OK(WaitForLog(*outboxd, "outboxd is ready again as far as the slot goes"));
  IT_EXPECT_OK(WaitForReadyz(200).status());

  // 3. Paused, outboxd confirms nothing; WAL and checkpoints go on until Postgres invalidates
  // the slot (terminating its walsender to do so).
  ASSERT_EQ(::kill(outboxd->pid(), SIGSTOP), 0);
  statuses.clear();
  IT_ASSERT_OK(WriteWalUntil([](const SlotRow& row) { return row.wal_status == "lost"; },
                             /*checkpoint=*/true, "Postgres to invalidate the slot", &statuses));
  std::cout << "[paused] statuses seen until lost: " << testing::PrintToString(statuses) << "\n";
  IT_ASSERT_OK_AND_ASSIGN(SlotRow lost, ReadSlot());
  ASSERT_TRUE(LooksLikeLsn(lost.confirmed_flush_lsn)) << lost.confirmed_flush_lsn;
  ASSERT_EQ(::kill(outboxd->pid(), SIGCONT), 0);

  absl::StatusOr<it::ExitStatus> exit = outboxd->WaitForExit(absl::Seconds(60));
  ASSERT_TRUE(exit.ok()) << "outboxd still runs against a lost slot\n" << Tail(*outboxd, 40);
  EXPECT_EQ(exit->code, kExitSlotLost) << exit->ToString();
  const std::string first_log = it::LogTail(outboxd->log_path(), 200);
  const std::string message = ErrorLine(first_log, "was invalidated by Postgres");
  std::cout << "[outboxd said] " << message << "\n";
  EXPECT_THAT(message,
              AllOf(HasSubstr(absl::StrCat("replication slot ", slot(), " was invalidated")),
                    HasSubstr("wal_status = lost"),
                    HasSubstr(absl::StrCat("events committed after confirmed_flush_lsn ",
                                           lost.confirmed_flush_lsn, " may never reach Kafka")),
                    HasSubstr("outboxd slot drop"), HasSubstr("backfill")));

  // 4. Again, from the start: the same exit and message, and the slot is untouched.
  const std::string second_log = ExpectExit(GuardConfig(), kExitSlotLost);
  EXPECT_EQ(ErrorLine(second_log, "was invalidated by Postgres"), message);
  EXPECT_THAT(second_log, Not(HasSubstr("created replication slot")));
  IT_ASSERT_OK_AND_ASSIGN(SlotRow after, ReadSlot());
  EXPECT_EQ(after.wal_status, "lost");
  EXPECT_EQ(after.confirmed_flush_lsn, lost.confirmed_flush_lsn);
  IT_ASSERT_OK_AND_ASSIGN(int64_t slots,
                          admin_->QueryInt("SELECT count(*) FROM pg_replication_slots"));
  EXPECT_EQ(slots, 1) << "a slot was created next to the lost one";
}

// The slot can be invalidated between outboxd's set-up checks and START_REPLICATION; Postgres
// then refuses with SQLSTATE 55000 (like other unmet preconditions). The stream must report it
// as the lost slot (Aborted, exit 6), not a setting error or a retry. Driven through
// pg::ReplicationStream directly, since the window is too narrow to hit through the daemon.
TEST_F(WalGuardTest, StartReplicationOnAnInvalidatedSlotIsTheLostSlot) {
  IT_ASSERT_OK(admin_->Exec(absl::StrCat("SELECT pg_create_logical_replication_slot(",
                                         it::QuoteLiteral(slot()), ", 'pgoutput')")));
  IT_ASSERT_OK(admin_->Exec(
      absl::StrCat("CREATE PUBLICATION ", it::QuoteIdent(publication()), " FOR TABLE wal_filler")));
  IT_ASSERT_OK(WriteWalUntil([](const SlotRow& row) { return row.wal_status == "lost"; },
                             /*checkpoint=*/true, "Postgres to invalidate the slot", nullptr));
  IT_ASSERT_OK_AND_ASSIGN(SlotRow lost, ReadSlot());

  absl::StatusOr<pg::Connection> conn = pg::Connection::Open(cluster_->conninfo());
  ASSERT_TRUE(conn.ok()) << conn.status();
  absl::StatusOr<pg::ReplicationStream> stream = pg::ReplicationStream::Start(
      std::move(*conn), {.slot = slot(), .publication = publication()});
  ASSERT_FALSE(stream.ok()) << "START_REPLICATION streamed an invalidated slot";
  EXPECT_EQ(stream.status().code(), absl::StatusCode::kAborted) << stream.status();
  EXPECT_THAT(std::string(stream.status().message()),
              AllOf(HasSubstr("wal_status = lost"),
                    HasSubstr(absl::StrCat("after confirmed_flush_lsn ", lost.confirmed_flush_lsn)),
                    HasSubstr("pg_drop_replication_slot")));
}

}  // namespace
}  // namespace outboxd::faults
