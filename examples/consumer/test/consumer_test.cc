// The example consumer against real Postgres and Kafka, with envelopes the test writes itself
// through the generated class: whatever the number of deliveries (kill -9, duplicate records,
// the group reset to the beginning), the inbox holds each id once and the projection equals
// one pass; records that cannot be applied stop the consumer instead of being skipped.

#include <iostream>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "consumer_fixture.h"
#include "gtest/gtest.h"
#include "harness/kafka_admin.h"
#include "harness/status_macros.h"
#include "harness/wait.h"
#include "kafka_tools.h"
#include "outboxd/v1/event.pb.h"

namespace consumer_test {
namespace {

// Envelopes written by the test itself (through the generated class): duplicate records in
// the topic, a kill -9 mid-stream, a clean stop, then the group reset and everything re-read.
TEST_F(ConsumerTest, SelfProducedEnvelopesAreAppliedOnceThroughReplays) {
  constexpr int kEvents = 400;
  const std::vector<TestEvent> events = MakeEvents(kEvents, 8, schema_);
  IT_ASSERT_OK(outboxd::it::CreateTopic(env().kafka_bootstrap, topic_, 3));
  std::vector<std::pair<std::string, std::string>> records = EnvelopeRecords(events);
  IT_ASSERT_OK(Produce(env().kafka_bootstrap, topic_, records));

  IT_ASSERT_OK_AND_ASSIGN(ChildProcess * first, StartConsumer());
  ASSERT_TRUE(outboxd::it::WaitUntil([&] { return InboxCount() >= 100; }, absl::Seconds(60)))
      << ReadFile(first->log_path());
  first->Kill();  // Mid-stream: some applied records' offsets are not committed yet.
  // Then the first 150 events again, as a producer's replay writes them. Only after the kill:
  // a first consumer that ran on past its 100th event on a loaded machine could otherwise
  // read (and commit) some of them itself, and the second would see fewer than 150.
  const std::vector<std::pair<std::string, std::string>> replayed =
      EnvelopeRecords(std::vector<TestEvent>(events.begin(), events.begin() + 150));
  IT_ASSERT_OK(Produce(env().kafka_bootstrap, topic_, replayed));
  records.insert(records.end(), replayed.begin(), replayed.end());

  IT_ASSERT_OK_AND_ASSIGN(ChildProcess * second, StartConsumer());
  IT_ASSERT_OK(WaitCaughtUp(absl::Seconds(90)));
  IT_ASSERT_OK_AND_ASSIGN(const int second_exit, second->Stop(absl::Seconds(30)));
  EXPECT_EQ(second_exit, 0) << ReadFile(second->log_path());
  const auto [applied2, duplicates2] = StopSummary(ReadFile(second->log_path()));
  EXPECT_GE(duplicates2, 150) << "the 150 repeated records reach the second consumer";
  ExpectAppliedOnce(events);

  // The group forgotten: the next consumer reads all 550 records again, and applies none.
  IT_ASSERT_OK(DeleteGroup(env().kafka_bootstrap, group_));
  IT_ASSERT_OK_AND_ASSIGN(ChildProcess * third, StartConsumer());
  IT_ASSERT_OK(WaitCaughtUp(absl::Seconds(90)));
  IT_ASSERT_OK_AND_ASSIGN(const int third_exit, third->Stop(absl::Seconds(30)));
  EXPECT_EQ(third_exit, 0);
  const std::string third_log = ReadFile(third->log_path());
  EXPECT_EQ(StopSummary(third_log),
            std::make_pair(int64_t{0}, static_cast<int64_t>(records.size())))
      << third_log;
  ExpectAppliedOnce(events);
  std::cout << "[consumer] " << records.size() << " records, " << kEvents
            << " events; second consumer " << applied2 << " applied, " << duplicates2
            << " duplicates; after the group reset " << StopSummary(third_log).second
            << " duplicates\n";
}

// A record that is not an envelope stops the consumer (exit 3) without committing its offset:
// the events before it are applied, and a restart stops at the same record again.
TEST_F(ConsumerTest, UndecodableRecordStopsWithoutSkippingIt) {
  const std::vector<TestEvent> events = MakeEvents(10, 2, schema_);
  const std::string not_an_envelope = "{\"amount\": 5}";  // e.g. outboxd's raw format
  outboxd::v1::Event probe;
  ASSERT_FALSE(probe.ParseFromString(not_an_envelope)) << "the bad record must not decode";
  IT_ASSERT_OK(outboxd::it::CreateTopic(env().kafka_bootstrap, topic_, 1));
  std::vector<std::pair<std::string, std::string>> records =
      EnvelopeRecords(std::vector<TestEvent>(events.begin(), events.begin() + 5));
  records.emplace_back("acct-0", not_an_envelope);
  for (auto& r : EnvelopeRecords(std::vector<TestEvent>(events.begin() + 5, events.end()))) {
    records.push_back(std::move(r));
  }
  IT_ASSERT_OK(Produce(env().kafka_bootstrap, topic_, records));

  for (int run = 1; run <= 2; ++run) {
    IT_ASSERT_OK_AND_ASSIGN(ChildProcess * consumer, StartConsumer());
    IT_ASSERT_OK_AND_ASSIGN(const int code, consumer->WaitForExit(absl::Seconds(60)));
    const std::string log = ReadFile(consumer->log_path());
    EXPECT_EQ(code, 3) << "run " << run << ":\n" << log;
    EXPECT_TRUE(
        absl::StrContains(log, absl::StrCat("record ", topic_, "/0@5 is not an outboxd.v1.Event")))
        << log;
    ExpectAppliedOnce(std::vector<TestEvent>(events.begin(), events.begin() + 5));
  }
}

// Postgres errors are retried, never skipped: the consumer's connection is killed again and
// again while it applies, and still every event lands once.
TEST_F(ConsumerTest, DatabaseErrorsAreRetriedNotSkipped) {
  const std::vector<TestEvent> events = MakeEvents(2000, 5, schema_);
  IT_ASSERT_OK(outboxd::it::CreateTopic(env().kafka_bootstrap, topic_, 2));
  IT_ASSERT_OK(Produce(env().kafka_bootstrap, topic_, EnvelopeRecords(events)));

  IT_ASSERT_OK_AND_ASSIGN(ChildProcess * consumer, StartConsumer());
  int64_t terminated = 0;
  // OFFSET 0 keeps the filter ahead of pg_terminate_backend (a WHERE clause's order is the
  // planner's): only the consumer's own backend is terminated.
  const std::string kill_sql =
      "SELECT count(pg_terminate_backend(pid)) FROM (SELECT pid FROM pg_stat_activity"
      " WHERE application_name = 'outboxd-example-consumer' OFFSET 0) AS consumer";
  ASSERT_TRUE(outboxd::it::WaitUntil(
      [&] {
        const int64_t applied = InboxCount();
        if (applied >= static_cast<int64_t>(events.size())) return true;
        if (applied <= 0) return false;  // Not before it started: set-up failures exit 2.
        absl::StatusOr<int64_t> n = admin().QueryInt(kill_sql);
        if (n.ok()) terminated += *n;
        return false;
      },
      absl::Seconds(120), absl::Milliseconds(50)))
      << ReadFile(consumer->log_path());
  IT_ASSERT_OK(WaitCaughtUp(absl::Seconds(60)));
  IT_ASSERT_OK_AND_ASSIGN(const int code, consumer->Stop(absl::Seconds(30)));
  const std::string log = ReadFile(consumer->log_path());
  EXPECT_EQ(code, 0) << log;
  EXPECT_GT(terminated, 0) << "no connection was terminated: the retry path did not run";
  EXPECT_TRUE(absl::StrContains(log, "retrying in")) << log;
  ExpectAppliedOnce(events);
  std::cout << "[consumer] " << terminated << " connections terminated while applying "
            << events.size() << " events\n";
}

// Bad arguments and a database without schema.sql: exit 2 and a message naming the fix.
TEST_F(ConsumerTest, BadArgumentsAndMissingTablesAreRefusedClearly) {
  const std::vector<std::tuple<std::vector<std::string>, std::string>> cases = {
      {{CONSUMER_BINARY}, "missing --brokers, --group, --topic, --postgres"},
      {{CONSUMER_BINARY, "--brokers", "x:1", "--group", "g", "--topic", "t", "--postgres",
        conninfo_, "--commit-interval-ms", "soon"},
       "--commit-interval-ms must be a positive number of milliseconds, not \"soon\""},
      {{CONSUMER_BINARY, "--bogus"}, "unknown argument \"--bogus\""},
      {{CONSUMER_BINARY, "--topic"}, "--topic needs a value"},
      {{CONSUMER_BINARY, "--brokers", env().kafka_bootstrap, "--group", "g", "--topic", "t",
        "--postgres", env().pg_conninfo + " options='-csearch_path=no_such_schema'"},
       "tables inbox and aggregate_totals are not on the connection's search_path; create them "
       "with: psql CONNINFO -f examples/consumer/inbox.sql -f examples/consumer/schema.sql"},
  };
  for (const auto& [args, message] : cases) {
    IT_ASSERT_OK_AND_ASSIGN(ChildProcess * consumer, StartConsumer(args));
    IT_ASSERT_OK_AND_ASSIGN(const int code, consumer->WaitForExit(absl::Seconds(30)));
    const std::string log = ReadFile(consumer->log_path());
    EXPECT_EQ(code, 2) << log;
    EXPECT_TRUE(absl::StrContains(log, message)) << "want: " << message << "\ngot: " << log;
  }
}

}  // namespace
}  // namespace consumer_test
