// Readiness of parallel slots joined into one: ready only while every slot is.

#include "metrics/health_join.h"

#include "gtest/gtest.h"
#include "metrics/health.h"

namespace outboxd::metrics {
namespace {

TEST(HealthJoinTest, StreamingOnlyWhileEverySlotStreams) {
  Health target;
  HealthJoin join(target, {"s_0", "s_1"});
  join.part(0).SetStreaming(true, "streaming slot s_0");
  EXPECT_FALSE(target.Read().streaming.ok);
  join.part(1).SetStreaming(true, "streaming slot s_1");
  EXPECT_TRUE(target.Read().streaming.ok);
  EXPECT_EQ(target.Read().streaming.reason, "streaming slots s_0, s_1");
  join.part(1).SetStreaming(false, "connection lost");
  EXPECT_FALSE(target.Read().streaming.ok);
  EXPECT_EQ(target.Read().streaming.reason, "slot s_1: connection lost");
}

TEST(HealthJoinTest, OneSlotAtRiskMakesTheWholeNotReady) {
  Health target;
  HealthJoin join(target, {"s_0", "s_1"});
  join.part(0).SetSlot(true, "safe");
  join.part(1).SetSlot(false, "safe_wal_size 10 MiB below 1 GiB");
  EXPECT_FALSE(target.Read().slot.ok);
  EXPECT_EQ(target.Read().slot.reason, "slot s_1: safe_wal_size 10 MiB below 1 GiB");
  join.part(1).SetSlot(true, "safe");
  EXPECT_TRUE(target.Read().slot.ok);
  EXPECT_EQ(target.Read().slot.reason, "WAL safe on slots s_0, s_1");
}

// The producer is one for all slots: it reports to the joined Health directly.
TEST(HealthJoinTest, TheProducerComponentIsNotJoined) {
  Health target;
  HealthJoin join(target, {"s_0", "s_1"});
  target.SetProducer(true, "Kafka reachable");
  join.part(0).SetStreaming(true, "streaming slot s_0");
  EXPECT_TRUE(target.Read().producer.ok);
}

}  // namespace
}  // namespace outboxd::metrics
