// The producer's decisions that need no broker: which delivery failures dead-letter a record,
// which client errors are authentication problems, and which properties Create refuses.
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
  void OnFailed(uint64_t, rd_kafka_resp_err_t, const rd_kafka_message_t&) override {}
};

using Properties = std::vector<std::pair<std::string, std::string>>;

absl::Status CreateWith(Properties extra) {
  NullHandler handler;
  Properties properties = {{"bootstrap.servers", "127.0.0.1:1"}};
  properties.insert(properties.end(), extra.begin(), extra.end());
  auto producer = Producer::Create(properties, handler);
  return producer.status();
}

std::string MessageOf(const absl::Status& status) { return std::string(status.message()); }

TEST(ClassifyDeliveryErrorTest, RecordVerdictsAreDeadLettered) {
  for (rd_kafka_resp_err_t err :
       {RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE, RD_KAFKA_RESP_ERR_INVALID_MSG,
        RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE, RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION,
        RD_KAFKA_RESP_ERR_INVALID_RECORD, RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED,
        RD_KAFKA_RESP_ERR_POLICY_VIOLATION, RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC,
        RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, RD_KAFKA_RESP_ERR__INVALID_ARG}) {
    EXPECT_EQ(ClassifyDeliveryError(err), FailureKind::kRecordRejected) << rd_kafka_err2name(err);
  }
}

TEST(ClassifyDeliveryErrorTest, EverythingElseReplaysFromTheConfirmedLsn) {
  for (rd_kafka_resp_err_t err :
       {RD_KAFKA_RESP_ERR__MSG_TIMED_OUT, RD_KAFKA_RESP_ERR__TRANSPORT,
        RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN, RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
        RD_KAFKA_RESP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER, RD_KAFKA_RESP_ERR__FATAL,
        RD_KAFKA_RESP_ERR__PURGE_QUEUE, RD_KAFKA_RESP_ERR__AUTHENTICATION,
        RD_KAFKA_RESP_ERR_NO_ERROR}) {
    EXPECT_EQ(ClassifyDeliveryError(err), FailureKind::kRestart) << rd_kafka_err2name(err);
  }
}

TEST(AuthenticationErrorMessageTest, SecurityFailuresNameCauseAndFix) {
  for (rd_kafka_resp_err_t err :
       {RD_KAFKA_RESP_ERR__AUTHENTICATION, RD_KAFKA_RESP_ERR__SSL,
        RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED, RD_KAFKA_RESP_ERR_UNSUPPORTED_SASL_MECHANISM,
        RD_KAFKA_RESP_ERR_ILLEGAL_SASL_STATE}) {
    const std::optional<std::string> message =
        AuthenticationErrorMessage(err, "SASL handshake failed");
    ASSERT_TRUE(message.has_value()) << rd_kafka_err2name(err);
    EXPECT_THAT(*message, AllOf(HasSubstr("Kafka authentication failed: SASL handshake failed"),
                                HasSubstr(rd_kafka_err2name(err)),
                                HasSubstr("check security.protocol, sasl.* and ssl.* in [kafka]")));
  }
}

TEST(AuthenticationErrorMessageTest, ClusterAuthorizationNamesTheAcl) {
  const std::optional<std::string> message =
      AuthenticationErrorMessage(RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED, "denied");
  ASSERT_TRUE(message.has_value());
  EXPECT_THAT(*message, AllOf(HasSubstr("not authorized"), HasSubstr("IdempotentWrite")));
}

TEST(AuthenticationErrorMessageTest, OutagesAndOtherErrorsAreNot) {
  for (rd_kafka_resp_err_t err :
       {RD_KAFKA_RESP_ERR__TRANSPORT, RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN,
        RD_KAFKA_RESP_ERR__RESOLVE, RD_KAFKA_RESP_ERR__FATAL, RD_KAFKA_RESP_ERR__TIMED_OUT,
        RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED, RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE}) {
    EXPECT_EQ(AuthenticationErrorMessage(err, "x"), std::nullopt) << rd_kafka_err2name(err);
  }
}

TEST(ProducerCreateTest, DefaultsAloneBuildAProducer) {
  NullHandler handler;
  auto producer = Producer::Create({{"bootstrap.servers", "127.0.0.1:1"}}, handler);
  ASSERT_TRUE(producer.ok()) << producer.status();
  EXPECT_GE((*producer)->event_fd(), 0);
  EXPECT_EQ((*producer)->fatal_error(), std::nullopt);
  EXPECT_EQ((*producer)->auth_error(), std::nullopt);
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
