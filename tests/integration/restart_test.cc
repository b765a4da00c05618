// Restarts while writers keep writing: after SIGTERM nothing is lost and nothing repeats;
// after kill -9 nothing is lost, duplicates are allowed, and first occurrences keep
// per-aggregate commit order (DESIGN.md invariants 1, 3 and 6). A slot that moved back behind
// the position record (what a Postgres crash does) republishes nothing.

#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "harness/delivery_check.h"
#include "harness/fixture.h"
#include "harness/kafka_consumer.h"
#include "harness/log_tail.h"
#include "harness/outbox_writer.h"
#include "harness/slot.h"
#include "harness/status_client.h"
#include "harness/status_macros.h"
#include "harness/wait.h"
#include "harness/writer_pool.h"

namespace outboxd::it {
namespace {

enum class StopHow { kSigterm, kKill9 };

class RestartTest : public OutboxdTest {
 protected:
  // Runs writers throughout: outboxd #1 streams, is stopped `how`, rows pile up while it is
  // down, outboxd #2 resumes from the slot. Returns the report over everything committed.
  void RunScenario(StopHow how, DeliveryReport& report);
};

void RestartTest::RunScenario(StopHow how, DeliveryReport& report) {
  IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * first, StartOutboxd());

  const LoadSpec spec = NewRestartLoadSpec(/*writers=*/2, /*aggregates=*/20, absl::Milliseconds(5),
                                           /*seed=*/how == StopHow::kSigterm ? 7 : 9);
  const std::vector<std::string> topics = LoadTopics();

  std::vector<WriterResult> results;
  WriterPool writers = StartLoadWriters(env().pg_conninfo, spec, results);
  absl::SleepFor(absl::Seconds(3));
  ASSERT_TRUE(first->Running()) << "outboxd #1 exited before it was stopped";

  if (how == StopHow::kSigterm) {
    const absl::Time t0 = absl::Now();
    IT_ASSERT_OK_AND_ASSIGN(ExitStatus exit, first->Stop(absl::Seconds(30)));
    EXPECT_TRUE(exit.ExitedZero()) << "SIGTERM should drain and exit 0, got " << exit.ToString();
    std::cout << "[restart] outboxd #1 exited after SIGTERM in "
              << absl::FormatDuration(absl::Now() - t0) << ": " << exit.ToString() << "\n";
  } else {
    std::cout << "[restart] outboxd #1 kill -9: " << first->Kill().ToString() << "\n";
  }
  absl::SleepFor(absl::Seconds(2));  // Writers go on while no outboxd runs.

  IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * second, StartOutboxd());
  absl::SleepFor(absl::Seconds(3));
  writers.RequestStop();
  IT_ASSERT_OK(writers.Join());

  absl::StatusOr<DeliveryReport> checked = ReadBackAndCheck(results, topics);
  ASSERT_TRUE(checked.ok()) << checked.status() << "\n" << Tail(*second);
  report = *checked;

  EXPECT_TRUE(second->Running()) << "outboxd #2 exited";
  IT_ASSERT_OK_AND_ASSIGN(ExitStatus exit, second->Stop(absl::Seconds(30)));
  EXPECT_TRUE(exit.ExitedZero()) << "SIGTERM should drain and exit 0, got " << exit.ToString();
}

void ExpectNoLossNoReorder(const DeliveryReport& report) {
  EXPECT_GT(report.expected, 0u);
  EXPECT_EQ(report.missing, 0u) << report.Summary();
  EXPECT_EQ(report.unexpected, 0u) << report.Summary();
  EXPECT_EQ(report.wrong_content, 0u) << report.Summary();
  EXPECT_EQ(report.split_aggregates, 0u) << report.Summary();
  EXPECT_EQ(report.order_violations, 0u) << report.Summary();
}

TEST_F(RestartTest, SigtermMidStreamThenRestartLosesAndRepeatsNothing) {
  DeliveryReport report;
  ASSERT_NO_FATAL_FAILURE(RunScenario(StopHow::kSigterm, report));
  ExpectNoLossNoReorder(report);
  EXPECT_EQ(report.duplicates, 0u)
      << "after SIGTERM outboxd drains and confirms, so a restart should repeat nothing; "
      << report.Summary();
  std::cout << "[restart] SIGTERM: " << report.Summary() << "\n";
}

TEST_F(RestartTest, Kill9MidStreamThenRestartLosesNothing) {
  DeliveryReport report;
  ASSERT_NO_FATAL_FAILURE(RunScenario(StopHow::kKill9, report));
  ExpectNoLossNoReorder(report);
  std::cout << "[restart] kill -9: " << report.Summary() << " (duplicates allowed)\n";
}

// delivery = "exactly_once": a kill -9 mid-stream repeats nothing for a read_committed consumer
// (the harness's consumer reads committed, librdkafka's default): what was committed to Kafka
// is skipped by the position record, what was not is invisible and sent again.
TEST_F(RestartTest, ExactlyOnceKill9MidStreamThenRestartRepeatsNothing) {
  config().delivery = "exactly_once";
  DeliveryReport report;
  ASSERT_NO_FATAL_FAILURE(RunScenario(StopHow::kKill9, report));
  ExpectNoLossNoReorder(report);
  EXPECT_EQ(report.duplicates, 0u) << report.Summary();
  std::cout << "[restart] exactly_once kill -9: " << report.Summary() << "\n";
}

// delivery = "exactly_once" with a Postgres transaction too long for one Kafka transaction: it
// is split over several, each with a position record naming how many of its events it holds,
// so a kill -9 in the middle resumes after them and repeats nothing.
TEST_F(RestartTest, ExactlyOnceKill9InsideASplitTransactionRepeatsNothing) {
  config().delivery = "exactly_once";
  config().relay_lines = {"transaction_split_ms = 20"};
  IT_ASSERT_OK_AND_ASSIGN(const int port, FreeLocalPort());
  config().http_listen = absl::StrCat("127.0.0.1:", port);
  IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * first, StartOutboxd());

  constexpr int kRows = 200'000;
  constexpr int kRowsPerInsert = 10'000;  // Postgres takes at most 65535 parameters.
  std::vector<ExpectedEvent> expected;
  IT_ASSERT_OK(pg().Exec("BEGIN"));
  for (int start = 0; start < kRows; start += kRowsPerInsert) {
    std::vector<OutboxRow> rows;
    for (int i = start; i < start + kRowsPerInsert; ++i) {
      rows.push_back({AggregateType(i % 5), AggregateId(i % 50), "Created",
                      absl::StrCat("{\"seq\": ", i, "}")});
    }
    IT_ASSERT_OK_AND_ASSIGN(std::vector<ExpectedEvent> events,
                            InsertOutboxRows(pg(), table(), topic_prefix(), rows));
    for (ExpectedEvent& e : events) expected.push_back(std::move(e));
  }
  IT_ASSERT_OK(pg().Exec("COMMIT"));
  const std::vector<std::string> topics = LoadTopics();

  // Killed once the first two parts are committed, long before the 200,000 rows are.
  const auto committed_parts = [&] {
    absl::StatusOr<HttpAnswer> page = HttpGet(port, "/metrics");
    if (!page.ok()) return 0.0;
    absl::StatusOr<std::map<std::string, double>> samples = ParseSamples(page->body);
    if (!samples.ok()) return 0.0;
    auto it = samples->find("outboxd_kafka_transactions_committed_total");
    return it == samples->end() ? 0.0 : it->second;
  };
  ASSERT_TRUE(
      WaitUntil([&] { return committed_parts() >= 2; }, absl::Seconds(60), absl::Milliseconds(2)))
      << Tail(*first);
  first->Kill();
  ASSERT_GT(CountLinesContaining(first->log_path(), "splitting"), 0) << Tail(*first);

  IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * second, StartOutboxd());
  IT_ASSERT_OK_AND_ASSIGN(const int64_t end, CurrentWalPosition(pg()));
  ASSERT_TRUE(WaitForSlotConfirmed(pg(), slot(), end, absl::Seconds(120))) << Tail(*second);
  IT_ASSERT_OK_AND_ASSIGN(
      std::vector<KafkaRecord> records,
      ConsumeFromBeginning(env().kafka_bootstrap, {topics, expected.size(), absl::Seconds(60)}));
  const DeliveryReport report = CheckDelivery(expected, records, {});
  ExpectNoLossNoReorder(report);
  EXPECT_EQ(report.duplicates, 0u) << report.Summary() << "\n" << Tail(*second);
  // The restart resumed inside the transaction (a kill after its end would prove nothing).
  EXPECT_EQ(CountLinesContaining(second->log_path(), "outbox events are in Kafka and are not"), 1)
      << Tail(*second);
  std::cout << "[restart] exactly_once kill -9 inside a split transaction: " << report.Summary()
            << "\n";
}

// A Postgres crash moves a slot back to its last checkpoint: the slot then sends again what
// Kafka already has. The same happens, deterministically, when the slot is replaced by a copy
// taken before the rows were written: same system, same timeline, slot behind the record.
TEST_F(RestartTest, ASlotMovedBackBehindThePositionRecordRepublishesNothing) {
  IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * first, StartOutboxd());
  const std::string backup = UniqueName("back");
  IT_ASSERT_OK(admin().Exec(
      absl::StrFormat("SELECT pg_copy_logical_replication_slot('%s', '%s')", slot(), backup)));

  LoadSpec spec = NewLoadSpec(/*writers=*/2);
  spec.aggregates = 10;
  spec.max_rows_per_tx = 5;
  spec.rollback_one_in = 0;
  spec.rows_per_writer = 300;
  const std::vector<std::string> topics = LoadTopics();
  std::vector<WriterResult> results;
  WriterPool writers = StartLoadWriters(env().pg_conninfo, spec, results);
  IT_ASSERT_OK(writers.Join());
  IT_ASSERT_OK_AND_ASSIGN(const int64_t end, CurrentWalPosition(pg()));
  ASSERT_TRUE(WaitForSlotConfirmed(pg(), slot(), end, absl::Seconds(60))) << Tail(*first);
  IT_ASSERT_OK_AND_ASSIGN(ExitStatus exit, first->Stop(absl::Seconds(30)));
  ASSERT_TRUE(exit.ExitedZero()) << exit.ToString();

  // The slot goes back to where it was before the rows; the position record stays ahead.
  IT_ASSERT_OK(admin().Exec(absl::StrFormat("SELECT pg_drop_replication_slot('%s')", slot())));
  IT_ASSERT_OK(admin().Exec(
      absl::StrFormat("SELECT pg_copy_logical_replication_slot('%s', '%s')", backup, slot())));
  IT_ASSERT_OK(admin().Exec(absl::StrFormat("SELECT pg_drop_replication_slot('%s')", backup)));

  IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * second, StartOutboxd());
  // One more batch after the replay: it must still be published.
  spec.rows_per_writer = 20;
  spec.seed = 2;
  std::vector<WriterResult> later;
  WriterPool more = StartLoadWriters(env().pg_conninfo, spec, later);
  IT_ASSERT_OK(more.Join());
  IT_ASSERT_OK_AND_ASSIGN(const int64_t end2, CurrentWalPosition(pg()));
  ASSERT_TRUE(WaitForSlotConfirmed(pg(), slot(), end2, absl::Seconds(60))) << Tail(*second);

  std::vector<ExpectedEvent> expected = CommittedEvents(results);
  for (const ExpectedEvent& e : CommittedEvents(later)) expected.push_back(e);
  // Everything is acknowledged (the slot passed end2): the read goes to each partition's end.
  IT_ASSERT_OK_AND_ASSIGN(
      std::vector<KafkaRecord> records,
      ConsumeFromBeginning(env().kafka_bootstrap, {topics, expected.size(), absl::Seconds(60)}));
  const DeliveryReport report = CheckDelivery(expected, records, {});
  ExpectNoLossNoReorder(report);
  EXPECT_EQ(report.duplicates, 0u) << report.Summary() << "\n" << Tail(*second);
  std::stringstream log;
  log << std::ifstream(second->log_path()).rdbuf();
  EXPECT_NE(log.str().find("that Kafka already has"), std::string::npos) << Tail(*second);
  std::cout << "[restart] slot moved back: " << report.Summary() << "\n";
}

}  // namespace
}  // namespace outboxd::it
