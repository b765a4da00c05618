// Which side a failure came from travels in its Status (relay/failure.h).

#include "relay/failure.h"

#include "gtest/gtest.h"
#include "relay/stream_supervisor.h"

namespace outboxd::relay {
namespace {

TEST(FailureTest, AStatusWithoutASideIsThePostgresSide) {
  EXPECT_EQ(SideOf(absl::UnavailableError("connection lost")), FailureSide::kPostgres);
}

TEST(FailureTest, TheFirstBlameSticks) {
  const absl::Status kafka = Blame(FailureSide::kKafka, absl::UnavailableError("broker down"));
  EXPECT_EQ(SideOf(kafka), FailureSide::kKafka);
  EXPECT_EQ(SideOf(Blame(FailureSide::kSlot, kafka)), FailureSide::kKafka);
  EXPECT_EQ(kafka.message(), "broker down");
  EXPECT_TRUE(absl::IsUnavailable(kafka));
}

TEST(FailureTest, OkStaysOk) { EXPECT_TRUE(Blame(FailureSide::kKafka, absl::OkStatus()).ok()); }

TEST(FailureTest, LabelsAreTheRestartsMetricsCauses) {
  EXPECT_EQ(SideLabel(FailureSide::kPostgres), "postgres");
  EXPECT_EQ(SideLabel(FailureSide::kKafka), "kafka");
  EXPECT_EQ(SideLabel(FailureSide::kSlot), "slot");
}

TEST(BackoffTest, DoublesUpToTenSecondsAndStartsAfreshAfterAHealthyRun) {
  Backoff backoff;
  const std::chrono::steady_clock::time_point start{};
  std::vector<int64_t> delays;
  for (int i = 0; i < 7; ++i) delays.push_back(backoff.Next(start, start).count());
  EXPECT_EQ(delays, (std::vector<int64_t>{500, 1000, 2000, 4000, 8000, 10000, 10000}));
  EXPECT_EQ(backoff.Next(start, start + std::chrono::seconds(61)).count(), 500);
}

}  // namespace
}  // namespace outboxd::relay
