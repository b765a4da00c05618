// How outboxd ends: a stop request always ends the process, a long drain keeps the walsender
// alive, and a dead-letter topic that refuses records ends the run instead of a restart loop.
// Each of these once went wrong (see the issue notes of the operate-it work).

#include <signal.h>

#include <cstdlib>
#include <fstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/kafka_admin.h"
#include "harness/log_tail.h"
#include "harness/status_macros.h"
#include "support/faults_fixture.h"

namespace outboxd::faults {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

class ShutdownTest : public FaultsTest {
 protected:
  absl::Status InsertRow(const std::string& aggregate_type) {
    return pg().Exec(absl::StrCat("INSERT INTO ", table(),
                                  " (aggregatetype, aggregateid, type, payload) VALUES ('",
                                  aggregate_type, "', 'order-1', 'Created', '{\"n\": 1}')"));
  }
};

// Freezes the test broker (SIGSTOP) so that records stay in flight; thaws it when destroyed.
class FrozenBroker {
 public:
  static absl::StatusOr<FrozenBroker> Freeze() {
    const char* dir = std::getenv("OUTBOXD_TEST_SERVICES_DIR");
    if (dir == nullptr) return absl::FailedPreconditionError("OUTBOXD_TEST_SERVICES_DIR unset");
    std::ifstream file(absl::StrCat(dir, "/kafka/pid"));
    pid_t pid = 0;
    if (!(file >> pid) || pid <= 0 || ::kill(pid, SIGSTOP) != 0) {
      return absl::InternalError(absl::StrCat("cannot SIGSTOP the broker in ", dir));
    }
    return FrozenBroker(pid);
  }
  FrozenBroker(FrozenBroker&& other) noexcept : pid_(std::exchange(other.pid_, 0)) {}
  ~FrozenBroker() {
    if (pid_ > 0) ::kill(pid_, SIGCONT);
  }

 private:
  explicit FrozenBroker(pid_t pid) : pid_(pid) {}
  pid_t pid_;
};

TEST_F(ShutdownTest, LongDrainKeepsTheWalsenderAliveAndExitsZero) {
  // The walsender gives up on a client that has not confirmed for 2 s; the drain lasts 6 s.
  config().pg_conninfo = absl::StrCat(env().pg_conninfo, " options='-c wal_sender_timeout=2000'");
  config().status_interval_ms = 500;
  IT_ASSERT_OK_AND_ASSIGN(
      it::OutboxdProcess * outboxd,
      LaunchStreaming(ConfigText({}, {"[relay]", "shutdown_timeout_ms = 6000"})));
  {
    // A broker that accepts connections but never answers keeps the row in flight.
    IT_ASSERT_OK_AND_ASSIGN(FrozenBroker frozen, FrozenBroker::Freeze());
    IT_ASSERT_OK(InsertRow("Order"));
    absl::SleepFor(absl::Seconds(2));  // Let the row reach the producer.
    ASSERT_EQ(::kill(outboxd->pid(), SIGTERM), 0);
    // Well past wal_sender_timeout into the drain, the walsender must still hold the slot:
    // outboxd kept confirming instead of going silent.
    absl::SleepFor(absl::Seconds(4));
    IT_ASSERT_OK_AND_ASSIGN(
        int64_t active,
        admin().QueryInt(absl::StrCat("SELECT count(*) FROM pg_replication_slots WHERE active "
                                      "AND slot_name = '",
                                      slot(), "'")));
    EXPECT_EQ(active, 1) << "the walsender timed out during the drain";
    IT_ASSERT_OK_AND_ASSIGN(it::ExitStatus exit, outboxd->WaitForExit(absl::Seconds(30)));
    EXPECT_TRUE(exit.ExitedZero()) << exit.ToString();
  }
  EXPECT_THAT(it::LogTail(outboxd->log_path(), 20),
              AllOf(HasSubstr("waiting up to 6000 ms for 1 outstanding"),
                    HasSubstr("1 records still unacknowledged will be replayed")));
}

TEST_F(ShutdownTest, DeadLetterTopicRefusingEvenAValuelessRecordEndsTheRun) {
  // max.message.bytes = 1: the broker refuses every record, even one with only headers.
  IT_ASSERT_OK(
      it::CreateTopic(env().kafka_bootstrap, dlq_topic(), 1, {{"max.message.bytes", "1"}}));
  IT_ASSERT_OK(
      it::CreateTopic(env().kafka_bootstrap, Topic("Big"), 1, {{"max.message.bytes", "1"}}));
  IT_ASSERT_OK_AND_ASSIGN(it::OutboxdProcess * outboxd, LaunchStreaming(ConfigText()));
  IT_ASSERT_OK(InsertRow("Big"));
  IT_ASSERT_OK_AND_ASSIGN(it::ExitStatus exit, outboxd->WaitForExit(absl::Seconds(60)));
  EXPECT_EQ(exit.code, kExitServerSetup) << exit.ToString();
  EXPECT_THAT(it::LogTail(outboxd->log_path(), 40),
              AllOf(HasSubstr("refuses even a record without value"), HasSubstr("nothing was lost"),
                    HasSubstr("max.message.bytes")));
}

}  // namespace
}  // namespace outboxd::faults
