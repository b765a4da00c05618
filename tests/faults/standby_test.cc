// Two outboxd on one slot: the second waits (hot standby: the slot is in use, it retries with a
// WARN line) and takes over when the first is killed with -9. Nothing committed is lost;
// duplicates from the replay are allowed (at-least-once). With delivery = "exactly_once" a
// paused first instance is fenced by the second and exits 8, and nothing repeats.

#include <signal.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "harness/delivery_check.h"
#include "harness/kafka_consumer.h"
#include "harness/log_tail.h"
#include "harness/outbox_writer.h"
#include "harness/slot.h"
#include "harness/status_macros.h"
#include "harness/wait.h"
#include "harness/writer_pool.h"
#include "support/faults_fixture.h"

namespace outboxd::faults {
namespace {

class StandbyTest : public FaultsTest {};

TEST_F(StandbyTest, SecondInstanceWaitsAndTakesOverAfterKill9) {
  const std::string config_text = ConfigText();
  IT_ASSERT_OK_AND_ASSIGN(it::OutboxdProcess * primary, LaunchStreaming(config_text));
  IT_ASSERT_OK_AND_ASSIGN(it::OutboxdProcess * standby, Launch(config_text));
  ASSERT_TRUE(it::WaitUntil(
      [&] { return it::CountLinesContaining(standby->log_path(), "is active for PID") > 0; },
      absl::Seconds(30)))
      << "the standby never reported the slot in use:\n"
      << Tail(*standby);
  EXPECT_TRUE(standby->Running()) << Tail(*standby);
  EXPECT_GT(it::CountLinesContaining(standby->log_path(), "WARN"), 0) << Tail(*standby);

  it::LoadSpec spec = NewSteadyLoadSpec(/*writers=*/2, /*aggregates=*/10);
  const std::vector<std::string> topics = LoadTopics();

  std::vector<it::WriterResult> results;
  {
    it::WriterPool writers = it::StartLoadWriters(env().pg_conninfo, spec, results);
    absl::SleepFor(absl::Seconds(2));
    primary->Kill();
    absl::SleepFor(absl::Seconds(2));
    writers.RequestStop();
    IT_ASSERT_OK(writers.Join());
  }
  // The standby takes the slot within its backoff (capped at 10 s).
  IT_ASSERT_OK(it::WaitForSlotStreaming(pg(), slot(), publication(), absl::Seconds(40)));

  const std::vector<it::ExpectedEvent> expected = it::CommittedEvents(results);
  ASSERT_GT(expected.size(), 50u);
  // It confirms what it published: the slot moves past the last commit. Only then has Kafka
  // acknowledged every event, so the read below cannot stop early on a count that includes
  // the primary's duplicates.
  IT_ASSERT_OK_AND_ASSIGN(int64_t end, it::CurrentWalPosition(pg()));
  IT_EXPECT_OK(WaitForConfirmed(end));
  IT_ASSERT_OK_AND_ASSIGN(std::vector<it::KafkaRecord> records,
                          it::ConsumeFromBeginning(env().kafka_bootstrap,
                                                   {topics, expected.size(), absl::Seconds(90)}));
  const it::DeliveryReport report = it::CheckDelivery(expected, records, {});
  EXPECT_EQ(report.missing, 0u) << report.Summary();
  EXPECT_EQ(report.unexpected, 0u) << report.Summary();
  EXPECT_EQ(report.wrong_content, 0u) << report.Summary();
  EXPECT_EQ(report.order_violations, 0u) << report.Summary();
  EXPECT_EQ(report.split_aggregates, 0u) << report.Summary();
  std::cout << "[standby] " << report.Summary() << "\n";
  EXPECT_TRUE(standby->Running()) << Tail(*standby);
}

TEST_F(StandbyTest, ExactlyOnceAPausedPrimaryIsFencedByTheStandbyAndExits8) {
  config().delivery = "exactly_once";
  const std::string config_text = ConfigText();
  IT_ASSERT_OK_AND_ASSIGN(it::OutboxdProcess * primary, LaunchStreaming(config_text));
  it::LoadSpec spec = NewSteadyLoadSpec(/*writers=*/2, /*aggregates=*/10);
  const std::vector<std::string> topics = LoadTopics();
  std::vector<it::WriterResult> results;
  it::OutboxdProcess* standby = nullptr;
  {
    it::WriterPool writers = it::StartLoadWriters(env().pg_conninfo, spec, results);
    absl::SleepFor(absl::Seconds(1));
    // Paused (a GC pause, a frozen VM): the standby starts and takes the transactional.id.
    ASSERT_EQ(::kill(primary->pid(), SIGSTOP), 0);
    IT_ASSERT_OK_AND_ASSIGN(standby, Launch(config_text));
    ASSERT_TRUE(it::WaitUntil(
        [&] {
          return it::CountLinesContaining(standby->log_path(), "Kafka transactions initialized") >
                 0;
        },
        absl::Seconds(60)))
        << Tail(*standby);
    ASSERT_EQ(::kill(primary->pid(), SIGCONT), 0);
    // Resumed, it writes on into its open transaction and learns at the broker that it lost.
    IT_ASSERT_OK_AND_ASSIGN(it::ExitStatus exit, primary->WaitForExit(absl::Seconds(60)));
    EXPECT_EQ(exit.code.value_or(-1), 8) << exit.ToString() << "\n" << Tail(*primary);
    EXPECT_GT(it::CountLinesContaining(primary->log_path(), "fenced"), 0) << Tail(*primary);
    absl::SleepFor(absl::Seconds(1));
    writers.RequestStop();
    IT_ASSERT_OK(writers.Join());
  }
  IT_ASSERT_OK(it::WaitForSlotStreaming(pg(), slot(), publication(), absl::Seconds(60)));
  const std::vector<it::ExpectedEvent> expected = it::CommittedEvents(results);
  IT_ASSERT_OK_AND_ASSIGN(int64_t end, it::CurrentWalPosition(pg()));
  IT_EXPECT_OK(WaitForConfirmed(end, absl::Seconds(60)));
  IT_ASSERT_OK_AND_ASSIGN(std::vector<it::KafkaRecord> records,
                          it::ConsumeFromBeginning(env().kafka_bootstrap,
                                                   {topics, expected.size(), absl::Seconds(90)}));
  const it::DeliveryReport report = it::CheckDelivery(expected, records, {});
  EXPECT_EQ(report.missing, 0u) << report.Summary();
  EXPECT_EQ(report.duplicates, 0u) << report.Summary();
  EXPECT_EQ(report.order_violations, 0u) << report.Summary();
  std::cout << "[standby] exactly_once, paused primary fenced: " << report.Summary() << "\n";
  EXPECT_TRUE(standby->Running()) << Tail(*standby);
}

}  // namespace
}  // namespace outboxd::faults
