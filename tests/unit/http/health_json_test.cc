#include "http/health_json.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd::http {
namespace {

TEST(ReadyzBody, NamesEachComponentWithItsReason) {
  const metrics::Health::Snapshot health = {.streaming = {true, "streaming slot \"s\""},
                                            .producer = {false, "Kafka unreachable"},
                                            .slot = {true, "wal_status reserved"}};
  EXPECT_EQ(ReadyzBody(health),
            "{\"status\":\"not ready\",\"components\":{"
            "\"streaming\":{\"ok\":true,\"reason\":\"streaming slot \\\"s\\\"\"},"
            "\"producer\":{\"ok\":false,\"reason\":\"Kafka unreachable\"},"
            "\"slot\":{\"ok\":true,\"reason\":\"wal_status reserved\"}}}\n");
  metrics::Health::Snapshot ready = health;
  ready.producer = {true, "connected"};
  EXPECT_THAT(ReadyzBody(ready), ::testing::StartsWith("{\"status\":\"ready\","));
}

TEST(HealthzBody, SaysAliveWithVersionAndUptime) {
  EXPECT_EQ(HealthzBody("0.1.0", 12.3456),
            "{\"status\":\"alive\",\"version\":\"0.1.0\",\"uptime_seconds\":12.346}\n");
}

}  // namespace
}  // namespace outboxd::http
