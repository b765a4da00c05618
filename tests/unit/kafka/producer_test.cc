// The producer's decisions that need no broker: which properties CreateProducer refuses.
// No broker is involved: bootstrap.servers is 127.0.0.1:1, which librdkafka's threads may try
// and which refuses at once; no assertion depends on that attempt.

#include "kafka/producer.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd::kafka {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

class NullHandler : public DeliveryHandler {
 public:
  void OnDelivered(uint64_t) override {}
  void OnFailed(uint64_t, const DeliveryFailure&) override {}
};

using Properties = std::vector<std::pair<std::string, std::string>>;

absl::Status CreateWith(Properties extra) {
  NullHandler handler;
  Properties properties = {{"bootstrap.servers", "127.0.0.1:1"}};
  properties.insert(properties.end(), extra.begin(), extra.end());
  auto producer = CreateProducer(properties, handler);
  return producer.status();
}

std::string MessageOf(const absl::Status& status) { return std::string(status.message()); }

TEST(ProducerCreateTest, DefaultsAloneBuildAProducer) {
  NullHandler handler;
  auto producer = CreateProducer({{"bootstrap.servers", "127.0.0.1:1"}}, handler);
  ASSERT_TRUE(producer.ok()) << producer.status();
  EXPECT_GE((*producer)->event_fd(), 0);
  EXPECT_EQ((*producer)->fatal_error(), std::nullopt);
  EXPECT_EQ((*producer)->operator_error(), std::nullopt);
}

TEST(ProducerCreateTest, PinnedPropertiesAreRefused) {
  for (const auto& [name, value] : Properties{{"enable.idempotence", "false"},
                                              {"acks", "1"},
                                              {"acks", "0"},
                                              {"message.timeout.ms", "5000"},
                                              {"delivery.timeout.ms", "300000"}}) {
    const absl::Status status = CreateWith({{name, value}});
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << name << "=" << value;
    EXPECT_THAT(MessageOf(status), AllOf(HasSubstr("[kafka] \"" + name + "\" = \"" + value + "\""),
                                         HasSubstr("is not allowed"), HasSubstr("remove it")));
  }
}

TEST(ProducerCreateTest, PinnedValuesThemselvesAreAccepted) {
  EXPECT_TRUE(CreateWith({{"acks", "all"}}).ok());
  EXPECT_TRUE(CreateWith({{"acks", "-1"}}).ok());
  EXPECT_TRUE(CreateWith({{"enable.idempotence", "true"}}).ok());
  EXPECT_TRUE(CreateWith({{"message.timeout.ms", "0"}}).ok());
}

TEST(ProducerCreateTest, UnknownPropertyIsInvalidArgumentNamingIt) {
  const absl::Status status = CreateWith({{"linger.msec", "5"}});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(MessageOf(status),
              AllOf(HasSubstr("[kafka] \"linger.msec\""), HasSubstr("CONFIGURATION.md")));
}

TEST(ProducerCreateTest, InvalidValueIsInvalidArgumentNamingIt) {
  const absl::Status status = CreateWith({{"compression.type", "brotli"}});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(MessageOf(status), HasSubstr("[kafka] \"compression.type\""));
}

TEST(ProducerCreateTest, UnreadableCaFileFailsAtCreateNamingTheFix) {
  const absl::Status status = CreateWith(
      {{"security.protocol", "SSL"}, {"ssl.ca.location", "/nonexistent/outboxd-test-ca.pem"}});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(MessageOf(status),
              AllOf(HasSubstr("cannot create the Kafka producer"), HasSubstr("ssl.ca.location"),
                    HasSubstr("security.protocol, sasl.* and ssl.*")));
}

}  // namespace
}  // namespace outboxd::kafka
