// What outboxd reads from librdkafka's statistics JSON.

#include "kafka/stats.h"

#include "gtest/gtest.h"

namespace outboxd::kafka {
namespace {

TEST(TotalRetriesTest, SumsTxRetriesOverBrokers) {
  // Trimmed from a real librdkafka 2.0.2 statistics document.
  const std::string json = R"({"name":"outboxd#producer-1","type":"producer","msg_cnt":0,
    "brokers":{"127.0.0.1:9092/1":{"name":"127.0.0.1:9092/1","nodeid":1,"tx":40,"txretries":3},
               "GroupCoordinator":{"name":"GroupCoordinator","nodeid":-1,"tx":0,"txretries":0},
               "127.0.0.1:9093/2":{"name":"127.0.0.1:9093/2","nodeid":2,"tx":12,"txretries":4}},
    "topics":{}})";
  EXPECT_EQ(TotalRetries(json), 7u);
}

TEST(TotalRetriesTest, NoBrokersYetIsZero) {
  EXPECT_EQ(TotalRetries(R"({"name":"p","brokers":{}})"), 0u);
}

TEST(TotalRetriesTest, MalformedDocumentsAreRefused) {
  EXPECT_EQ(TotalRetries("not json"), std::nullopt);
  EXPECT_EQ(TotalRetries(R"({"name":"p"})"), std::nullopt);
  EXPECT_EQ(TotalRetries(R"({"brokers":{"b":{"txretries":"three"}}})"), std::nullopt);
}

}  // namespace
}  // namespace outboxd::kafka
