// Failover against real clusters of a given PostgreSQL version on this machine: a primary and a
// pg_basebackup standby (scripts/pg standby), outboxd on a multi-host conninfo
// (host=a,b target_session_attrs=read-write), rows flowing, the primary stopped, the standby
// promoted. outboxd reconnects to the new primary by itself and continues: 0 missing, 0
// per-aggregate reorders, duplicates counted and printed.
//  - PG 17+: the slot is a failover slot synchronized to the standby (sync_replication_slots);
//    outboxd resumes from the synchronized slot.
//  - Before 17 the slot does not exist on the promoted standby: outboxd exits 7 and creates
//    nothing (the refusal path for a failover).
//  - PG 16+: logical decoding from the standby itself, through its promotion.

#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "harness/delivery_check.h"
#include "harness/kafka_consumer.h"
#include "harness/log_tail.h"
#include "harness/outbox_writer.h"
#include "harness/pg_client.h"
#include "harness/slot.h"
#include "harness/status_macros.h"
#include "harness/wait.h"
#include "harness/writer_pool.h"
#include "support/dedicated_cluster.h"
#include "support/faults_fixture.h"

namespace outboxd::faults {
namespace {

// "port=N" of a scripts/pg conninfo.
std::string PortOf(const std::string& conninfo) {
  const size_t at = conninfo.find("port=") + 5;
  return conninfo.substr(at, conninfo.find(' ', at) - at);
}

class FailoverTest : public FaultsTest, public ::testing::WithParamInterface<const char*> {
 protected:
  void SetUp() override {
    FaultsTest::SetUp();
    if (HasFatalFailure()) return;
    IT_ASSERT_OK_AND_ASSIGN(primary_,
                            DedicatedCluster::StartVersion(env().scripts_dir, GetParam()));
    IT_ASSERT_OK_AND_ASSIGN(it::PgClient pg, it::PgClient::Connect(primary_->conninfo()));
    IT_ASSERT_OK(it::CreateOutboxTable(pg, table()));
    IT_ASSERT_OK_AND_ASSIGN(standby_, DedicatedCluster::StartStandby(*primary_));
  }
  void TearDown() override {
    FaultsTest::TearDown();
    standby_.reset();
    primary_.reset();
  }

  // Both servers, the writable one chosen by libpq.
  std::string MultiHostConninfo() const {
    return absl::StrCat("host=127.0.0.1,127.0.0.1 port=", PortOf(primary_->conninfo()), ",",
                        PortOf(standby_->conninfo()),
                        " dbname=app user=outboxd password=outboxd "
                        "target_session_attrs=read-write connect_timeout=2");
  }

  it::LoadSpec Spec(uint64_t seed) {
    it::LoadSpec spec = NewSteadyLoadSpec(/*writers=*/2, /*aggregates=*/10);
    spec.seed = seed;
    return spec;
  }

  // Writes for `duration` on `conninfo`; appends what committed to `expected`.
  absl::Status Load(const std::string& conninfo, uint64_t seed, absl::Duration duration,
                    std::vector<it::ExpectedEvent>& expected) {
    std::vector<it::WriterResult> results;
    {
      it::WriterPool writers = it::StartLoadWriters(conninfo, Spec(seed), results);
      absl::SleepFor(duration);
      writers.RequestStop();
      IT_RETURN_IF_ERROR(writers.Join());
    }
    for (const it::ExpectedEvent& e : it::CommittedEvents(results)) expected.push_back(e);
    return absl::OkStatus();
  }

  // Value of `sql` (one text column, $1 = the slot) on `conninfo`, "" when no row.
  absl::StatusOr<std::string> SlotQuery(const std::string& conninfo, const std::string& sql) {
    IT_ASSIGN_OR_RETURN(it::PgClient client, it::PgClient::Connect(conninfo));
    IT_ASSIGN_OR_RETURN(std::optional<std::string> v, client.QueryOptional(sql, {slot()}));
    return v.value_or("");
  }

  // Waits until outboxd streams from the slot on `server`; a failure carries outboxd's log.
  absl::Status WaitStreaming(it::PgClient& server, const it::OutboxdProcess& outboxd,
                             absl::Duration timeout) {
    const absl::Status ready = it::WaitForSlotStreaming(server, slot(), publication(), timeout);
    if (ready.ok()) return ready;
    return absl::Status(ready.code(), absl::StrCat(ready.message(), "\n", Tail(outboxd)));
  }

  // Reads every topic until `expected` events (or the timeout) and checks them.
  it::DeliveryReport Verify(const std::vector<it::ExpectedEvent>& expected) {
    absl::StatusOr<std::vector<it::KafkaRecord>> records = it::ConsumeFromBeginning(
        env().kafka_bootstrap, {LoadTopics(), expected.size(), absl::Seconds(90)});
    EXPECT_TRUE(records.ok()) << records.status();
    const it::DeliveryReport report =
        it::CheckDelivery(expected, records.ok() ? *records : std::vector<it::KafkaRecord>{}, {});
    EXPECT_EQ(report.missing, 0u) << report.Summary();
    EXPECT_EQ(report.unexpected, 0u) << report.Summary();
    EXPECT_EQ(report.wrong_content, 0u) << report.Summary();
    EXPECT_EQ(report.order_violations, 0u) << report.Summary();
    EXPECT_EQ(report.split_aggregates, 0u) << report.Summary();
    return report;
  }

  std::unique_ptr<DedicatedCluster> primary_;
  std::unique_ptr<DedicatedCluster> standby_;
};

class FailoverSlotTest : public FailoverTest {};

TEST_P(FailoverSlotTest, PromotedStandbyContinuesFromTheSynchronizedSlot) {
  config().pg_conninfo = MultiHostConninfo();
  IT_ASSERT_OK_AND_ASSIGN(it::OutboxdProcess * outboxd, Launch(ConfigText()));
  IT_ASSERT_OK_AND_ASSIGN(it::PgClient primary_pg, it::PgClient::Connect(primary_->conninfo()));
  IT_ASSERT_OK(WaitStreaming(primary_pg, *outboxd, absl::Seconds(30)));
  IT_ASSERT_OK_AND_ASSIGN(std::string failover,
                          SlotQuery(primary_->admin_conninfo(),
                                    "SELECT failover::text FROM pg_replication_slots WHERE "
                                    "slot_name = $1"));
  EXPECT_EQ(failover, "true") << "outboxd did not create a failover slot";

  std::vector<it::ExpectedEvent> expected;
  IT_ASSERT_OK(Load(primary_->conninfo(), 1, absl::Seconds(3), expected));
  // The slot sync worker copies the slot (and its position) to the standby.
  const auto synced = [&]() -> absl::StatusOr<bool> {
    absl::StatusOr<std::string> v = SlotQuery(standby_->admin_conninfo(),
                                              "SELECT (synced AND NOT temporary)::text FROM "
                                              "pg_replication_slots WHERE slot_name = $1");
    if (!v.ok()) return v.status();
    return *v == "true";
  };
  {
    const absl::Status waited =
        it::WaitUntilOk(synced, absl::Seconds(60), "the slot to be synchronized to the standby");
    ASSERT_TRUE(waited.ok()) << waited;
  }
  // More rows, then the primary goes away at once: the synchronized copy lags what outboxd
  // confirmed by up to the sync worker's interval.
  IT_ASSERT_OK(Load(primary_->conninfo(), 2, absl::Seconds(2), expected));
  IT_ASSERT_OK(primary_->Stop());
  const absl::Time failed_at = absl::Now();
  IT_ASSERT_OK(standby_->Promote());
  IT_ASSERT_OK_AND_ASSIGN(it::PgClient new_primary, it::PgClient::Connect(standby_->conninfo()));
  IT_ASSERT_OK(WaitStreaming(new_primary, *outboxd, absl::Seconds(60)));
  const absl::Duration reconnect = absl::Now() - failed_at;
  IT_ASSERT_OK(Load(standby_->conninfo(), 3, absl::Seconds(2), expected));

  const it::DeliveryReport report = Verify(expected);
  std::cout << "[failover pg" << GetParam() << "] streaming again "
            << absl::FormatDuration(reconnect) << " after the primary stopped; " << report.Summary()
            << "\n";
  EXPECT_TRUE(outboxd->Running()) << Tail(*outboxd);
}

// Before PG 17 a promoted standby has no logical slot: outboxd must not create one at "now".
class FailoverWithoutSlotTest : public FailoverTest {};

TEST_P(FailoverWithoutSlotTest, PromotedStandbyWithoutTheSlotIsRefused) {
  config().pg_conninfo = MultiHostConninfo();
  IT_ASSERT_OK_AND_ASSIGN(it::OutboxdProcess * outboxd, Launch(ConfigText()));
  IT_ASSERT_OK_AND_ASSIGN(it::PgClient primary_pg, it::PgClient::Connect(primary_->conninfo()));
  IT_ASSERT_OK(WaitStreaming(primary_pg, *outboxd, absl::Seconds(30)));
  std::vector<it::ExpectedEvent> expected;
  IT_ASSERT_OK(Load(primary_->conninfo(), 1, absl::Seconds(2), expected));
  // Waits until the physical standby replayed everything, so these rows are on the new primary.
  IT_ASSERT_OK_AND_ASSIGN(int64_t end, it::CurrentWalPosition(primary_pg));
  const auto replayed = [&]() -> absl::StatusOr<bool> {
    absl::StatusOr<it::PgClient> standby = it::PgClient::Connect(standby_->conninfo());
    if (!standby.ok()) return standby.status();
    absl::StatusOr<int64_t> lsn =
        standby->QueryInt("SELECT pg_wal_lsn_diff(pg_last_wal_replay_lsn(), '0/0')::bigint");
    if (!lsn.ok()) return lsn.status();
    return *lsn >= end;
  };
  {
    const absl::Status waited =
        it::WaitUntilOk(replayed, absl::Seconds(30), "the standby to replay the primary's WAL");
    ASSERT_TRUE(waited.ok()) << waited;
  }
  absl::SleepFor(absl::Seconds(1));  // The position record is written within 0.2 s of a change.
  IT_ASSERT_OK(primary_->Stop());
  IT_ASSERT_OK(standby_->Promote());
  absl::StatusOr<it::ExitStatus> exit = outboxd->WaitForExit(absl::Seconds(60));
  ASSERT_TRUE(exit.ok()) << "outboxd still runs after the failover:\n" << Tail(*outboxd);
  EXPECT_EQ(exit->code, 7) << exit->ToString() << "\n" << Tail(*outboxd);
  const std::string log = it::LogTail(outboxd->log_path(), 50);
  EXPECT_NE(log.find("does not exist on this server"), std::string::npos) << log;
  std::cout << "[failover pg" << GetParam() << "] " << log << "\n";
  IT_ASSERT_OK_AND_ASSIGN(std::string exists,
                          SlotQuery(standby_->admin_conninfo(),
                                    "SELECT 'yes' FROM pg_replication_slots WHERE "
                                    "slot_name = $1"));
  EXPECT_EQ(exists, "") << "outboxd created a slot at \"now\" on the promoted standby";
  // What it had published before the failover is all there.
  const it::DeliveryReport report = Verify(expected);
  std::cout << "[failover pg" << GetParam() << "] before the failover: " << report.Summary()
            << "\n";
}

// PG 16+: the slot lives on the standby; outboxd reads from it, then through its promotion.
class StandbySourceTest : public FailoverTest {};

TEST_P(StandbySourceTest, DecodesOnTheStandbyAndContinuesAfterItsPromotion) {
  // A standby's catalog is read-only: the publication is made on the primary, as
  // docs/operating.md says, and reaches the standby through the WAL.
  {
    IT_ASSERT_OK_AND_ASSIGN(it::PgClient primary_pg, it::PgClient::Connect(primary_->conninfo()));
    IT_ASSERT_OK(primary_pg.Exec(absl::StrCat("CREATE PUBLICATION ", publication(), " FOR TABLE ",
                                              table(), " WITH (publish = 'insert')")));
  }
  IT_ASSERT_OK_AND_ASSIGN(it::PgClient standby_pg, it::PgClient::Connect(standby_->conninfo()));
  // Start outboxd only once the standby has replayed the publication: before that it rightly
  // refuses to run (the publication is missing there).
  const auto replayed = [&]() -> absl::StatusOr<bool> {
    auto count = standby_pg.QueryInt("SELECT count(*) FROM pg_publication WHERE pubname = $1",
                                     {publication()});
    if (!count.ok()) return count.status();
    return *count == 1;
  };
  IT_ASSERT_OK(
      it::WaitUntilOk(replayed, absl::Seconds(30), "the standby to replay the publication"));
  config().pg_conninfo = standby_->conninfo();
  IT_ASSERT_OK_AND_ASSIGN(it::OutboxdProcess * outboxd, Launch(ConfigText()));
  IT_ASSERT_OK_AND_ASSIGN(it::PgClient primary_admin,
                          it::PgClient::Connect(primary_->admin_conninfo()));
  // A slot made on a standby waits for the primary's next running-transactions record: ask
  // for one rather than wait up to 15 s for the background writer.
  const auto streaming = [&]() -> absl::StatusOr<bool> {
    const absl::Status logged = primary_admin.Exec("SELECT pg_log_standby_snapshot()");
    if (!logged.ok()) return logged;
    return it::WaitForSlotStreaming(standby_pg, slot(), publication(), absl::Seconds(1)).ok();
  };
  {
    const absl::Status ready =
        it::WaitUntilOk(streaming, absl::Seconds(60), "outboxd to stream from the standby");
    ASSERT_TRUE(ready.ok()) << ready << "\n" << Tail(*outboxd);
  }
  std::vector<it::ExpectedEvent> expected;
  IT_ASSERT_OK(Load(primary_->conninfo(), 1, absl::Seconds(3), expected));
  IT_ASSERT_OK(primary_->Stop());
  IT_ASSERT_OK(standby_->Promote());
  IT_ASSERT_OK(Load(standby_->conninfo(), 2, absl::Seconds(2), expected));
  const it::DeliveryReport report = Verify(expected);
  std::cout << "[standby source pg" << GetParam() << "] " << report.Summary() << "\n";
  EXPECT_TRUE(outboxd->Running()) << Tail(*outboxd);
}

// Test names start with "Pg/": they pin their own versions, so the compat runs skip them.
INSTANTIATE_TEST_SUITE_P(Pg, FailoverSlotTest, ::testing::Values("17", "18"));
INSTANTIATE_TEST_SUITE_P(Pg, FailoverWithoutSlotTest, ::testing::Values("16"));
INSTANTIATE_TEST_SUITE_P(Pg, StandbySourceTest, ::testing::Values("16"));

}  // namespace
}  // namespace outboxd::faults
