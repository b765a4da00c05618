// What outboxd reads from librdkafka's statistics JSON.

#include "kafka/stats.h"

#include "gtest/gtest.h"

namespace outboxd::kafka {
namespace {

TEST(ParseProducerStatsTest, SumsRetriesAndCountsBrokersUp) {
  // Trimmed from a real librdkafka 2.0.2 statistics document.
  const std::string json = R"({"name":"outboxd#producer-1","type":"producer","msg_cnt":0,
    "brokers":{"127.0.0.1:9092/1":{"name":"127.0.0.1:9092/1","nodeid":1,"state":"UP","tx":40,
                                   "txretries":3},
               "GroupCoordinator":{"name":"GroupCoordinator","nodeid":-1,"state":"INIT","tx":0,
                                   "txretries":0},
               "127.0.0.1:9093/2":{"name":"127.0.0.1:9093/2","nodeid":2,"state":"CONNECT",
                                   "tx":12,"txretries":4}},
    "topics":{}})";
  const std::optional<ProducerStats> stats = ParseProducerStats(json);
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->retries, 7u);
  EXPECT_EQ(stats->brokers_up, 1);
}

TEST(ParseProducerStatsTest, NoBrokersYet) {
  const std::optional<ProducerStats> stats = ParseProducerStats(R"({"name":"p","brokers":{}})");
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->retries, 0u);
  EXPECT_EQ(stats->brokers_up, 0);
}

TEST(ParseProducerStatsTest, MalformedDocumentsAreRefused) {
  EXPECT_EQ(ParseProducerStats("not json"), std::nullopt);
  EXPECT_EQ(ParseProducerStats(R"({"name":"p"})"), std::nullopt);
  EXPECT_EQ(ParseProducerStats(R"({"brokers":{"b":{"txretries":"three","state":"UP"}}})"),
            std::nullopt);
  EXPECT_EQ(ParseProducerStats(R"({"brokers":{"b":{"txretries":1}}})"), std::nullopt);
}

}  // namespace
}  // namespace outboxd::kafka
