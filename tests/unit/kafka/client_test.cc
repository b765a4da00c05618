// The one configuration builder and client constructor: errors name the property, ownership of
// the configuration ends in the client, and only connection settings reach helper clients.

#include "kafka/client.h"

#include <optional>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd::kafka {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

TEST(BuildConfTest, AppliesEveryProperty) {
  auto conf = BuildConf({{"client.id", "outboxd-test"}, {"linger.ms", "7"}});
  ASSERT_TRUE(conf.ok()) << conf.status();
  char value[64];
  size_t size = sizeof value;
  ASSERT_EQ(rd_kafka_conf_get(conf->get(), "linger.ms", value, &size), RD_KAFKA_CONF_OK);
  EXPECT_STREQ(value, "7");
}

TEST(BuildConfTest, NamesTheRejectedProperty) {
  for (const auto& [name, value] :
       Properties{{"no.such.property", "1"}, {"linger.ms", "not a number"}}) {
    auto conf = BuildConf({{"client.id", "x"}, {name, value}});
    EXPECT_EQ(conf.status().code(), absl::StatusCode::kInvalidArgument) << name;
    EXPECT_THAT(std::string(conf.status().message()),
                AllOf(HasSubstr("[kafka] \"" + name + "\""), HasSubstr("CONFIGURATION.md")));
  }
}

TEST(NewClientTest, BuildsAClientAndRefusesAnInconsistentConf) {
  auto ok = NewClient(RD_KAFKA_PRODUCER, *BuildConf({{"bootstrap.servers", "127.0.0.1:1"}}));
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_NE(ok->get(), nullptr);
  // Accepted property by property, refused by rd_kafka_new (the conf is freed either way).
  auto refused =
      NewClient(RD_KAFKA_PRODUCER, *BuildConf({{"enable.idempotence", "true"}, {"acks", "1"}}));
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(refused.status().message().empty());
}

TEST(ConnectionPropertiesTest, KeepsOnlyHowToReachTheBrokers) {
  EXPECT_THAT(
      ConnectionProperties({{"bootstrap.servers", "k:9092"},
                            {"linger.ms", "1"},
                            {"security.protocol", "SASL_SSL"},
                            {"sasl.mechanism", "SCRAM-SHA-512"},
                            {"ssl.ca.location", "/ca.pem"},
                            {"acks", "all"},
                            {"client.id", "outboxd"}}),
      ElementsAre(Pair("bootstrap.servers", "k:9092"), Pair("security.protocol", "SASL_SSL"),
                  Pair("sasl.mechanism", "SCRAM-SHA-512"), Pair("ssl.ca.location", "/ca.pem"),
                  Pair("client.id", "outboxd")));
}

TEST(NewHelperClientTest, ProducerTuningDoesNotReachAConsumer) {
  std::optional<std::string> operator_error;
  // queue.buffering.max.kbytes is a producer property: a consumer conf given it would warn.
  auto rk = NewHelperClient(
      RD_KAFKA_CONSUMER,
      {{"bootstrap.servers", "127.0.0.1:1"}, {"queue.buffering.max.kbytes", "2048"}},
      {{"group.id", "g"}}, &operator_error);
  ASSERT_TRUE(rk.ok()) << rk.status();
  EXPECT_EQ(operator_error, std::nullopt);
}

}  // namespace
}  // namespace outboxd::kafka
