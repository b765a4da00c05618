// The one configuration builder and client constructor: errors name the property, ownership of
// the configuration ends in the client, only connection settings reach helper clients, and an
// installed token hook (MSK IAM) serves every client.

#include "kafka/client.h"

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kafka/oauthbearer.h"

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

// MSK IAM: with a token hook installed, every client librdkafka builds asks it for tokens in
// the background, without the application polling (admin and helper clients never poll).
TEST(TokenHookTest, ClientsGetTokensFromTheHookWithoutPolling) {
  std::atomic<int> calls{0};
  const auto expiration = std::chrono::system_clock::now() + std::chrono::minutes(15);
  SetTokenHook([&]() -> absl::StatusOr<BearerToken> {
    ++calls;
    return BearerToken{"token-value", expiration, "outboxd"};
  });
  for (rd_kafka_type_t type : {RD_KAFKA_PRODUCER, RD_KAFKA_CONSUMER}) {
    const int before = calls;
    auto conf = BuildConf({{"bootstrap.servers", "127.0.0.1:1"},
                           {"security.protocol", "SASL_PLAINTEXT"},
                           {"sasl.mechanism", "OAUTHBEARER"}});
    ASSERT_TRUE(conf.ok()) << conf.status();
    if (type == RD_KAFKA_CONSUMER) {
      char errstr[256];
      rd_kafka_conf_set(conf->get(), "group.id", "g", errstr, sizeof errstr);
    }
    auto client = NewClient(type, *std::move(conf));
    ASSERT_TRUE(client.ok()) << client.status();
    for (int i = 0; i < 500 && calls == before; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_GT(calls, before) << "the token hook was not called for client type " << type;
  }
  SetTokenHook(nullptr);
}

TEST(TokenHookTest, WithoutAHookNoRefreshCallbackIsInstalled) {
  SetTokenHook(nullptr);
  auto conf = BuildConf({{"bootstrap.servers", "127.0.0.1:1"},
                         {"sasl.mechanism", "OAUTHBEARER"},
                         {"security.protocol", "SASL_PLAINTEXT"}});
  ASSERT_TRUE(conf.ok()) << conf.status();
  // librdkafka's own unsecured-JWT builder then needs its config; outboxd did not replace it.
  char errstr[256];
  EXPECT_EQ(rd_kafka_conf_set(conf->get(), "enable.sasl.oauthbearer.unsecure.jwt", "true", errstr,
                              sizeof errstr),
            RD_KAFKA_CONF_OK);
  EXPECT_FALSE(HasTokenHook());
}

}  // namespace
}  // namespace outboxd::kafka
