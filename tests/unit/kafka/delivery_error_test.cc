// Which librdkafka errors dead-letter a record, replay or stop for the operator, checked on
// the classifier and, through librdkafka's mock cluster, on real delivery reports.

#include "kafka/delivery_error.h"

#include <librdkafka/rdkafka_mock.h>

#include <memory>
#include <optional>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kafka/producer.h"

namespace outboxd::kafka {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(ClassifyErrorTest, OnlyRecordFaultsAreDeadLettered) {
  for (rd_kafka_resp_err_t err :
       {RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE, RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE,
        RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION, RD_KAFKA_RESP_ERR_INVALID_RECORD,
        RD_KAFKA_RESP_ERR_POLICY_VIOLATION, RD_KAFKA_RESP_ERR__INVALID_ARG}) {
    EXPECT_EQ(ClassifyError(err), ErrorVerdict::kRecordRejected) << rd_kafka_err2name(err);
  }
}

TEST(ClassifyErrorTest, TopicsBeingCreatedAndOutagesReplay) {
  for (rd_kafka_resp_err_t err :
       {RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC,
        RD_KAFKA_RESP_ERR__MSG_TIMED_OUT, RD_KAFKA_RESP_ERR__TRANSPORT,
        RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN, RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
        RD_KAFKA_RESP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER, RD_KAFKA_RESP_ERR__FATAL,
        RD_KAFKA_RESP_ERR__PURGE_QUEUE, RD_KAFKA_RESP_ERR_INVALID_MSG,
        RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS, RD_KAFKA_RESP_ERR_NO_ERROR}) {
    EXPECT_EQ(ClassifyError(err), ErrorVerdict::kReplay) << rd_kafka_err2name(err);
  }
}

TEST(ClassifyErrorTest, AuthorizationAndAuthenticationAreOperatorErrors) {
  for (rd_kafka_resp_err_t err :
       {RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED,
        RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED, RD_KAFKA_RESP_ERR__AUTHENTICATION,
        RD_KAFKA_RESP_ERR__SSL, RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED,
        RD_KAFKA_RESP_ERR_UNSUPPORTED_SASL_MECHANISM, RD_KAFKA_RESP_ERR_ILLEGAL_SASL_STATE}) {
    EXPECT_EQ(ClassifyError(err), ErrorVerdict::kOperatorError) << rd_kafka_err2name(err);
  }
}

TEST(ClassifyErrorTest, AFencedProducerIsFenced) {
  for (rd_kafka_resp_err_t err : {RD_KAFKA_RESP_ERR__FENCED, RD_KAFKA_RESP_ERR_PRODUCER_FENCED}) {
    EXPECT_EQ(ClassifyError(err), ErrorVerdict::kFenced) << rd_kafka_err2name(err);
  }
  // An idempotent producer sees this when its own epoch is bumped: a rebuild fixes it.
  EXPECT_EQ(ClassifyError(RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH), ErrorVerdict::kReplay);
  // Not being allowed to use the transactional.id is the operator's to fix, with the ACL named.
  EXPECT_EQ(ClassifyError(RD_KAFKA_RESP_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED),
            ErrorVerdict::kOperatorError);
  EXPECT_THAT(OperatorFix(RD_KAFKA_RESP_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED, "t"),
              HasSubstr("--transactional-id"));
}

TEST(ClassifyErrorTest, CodesNewSinceLibrdkafka202) {
  // The innocent records of a batch the broker refused for another record (KIP-467): a replay
  // would batch them with it again, so they are dead-lettered, as 2.0.2 did with the batch.
  EXPECT_EQ(ClassifyError(RD_KAFKA_RESP_ERR__INVALID_DIFFERENT_RECORD),
            ErrorVerdict::kRecordRejected);
  EXPECT_EQ(OperatorFix(RD_KAFKA_RESP_ERR__INVALID_DIFFERENT_RECORD, "t"), "");
  // Topic ids, the KIP-848 consumer group, client telemetry, consumer log truncation.
  for (rd_kafka_resp_err_t err :
       {RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_ID, RD_KAFKA_RESP_ERR_FENCED_MEMBER_EPOCH,
        RD_KAFKA_RESP_ERR_UNRELEASED_INSTANCE_ID, RD_KAFKA_RESP_ERR_UNSUPPORTED_ASSIGNOR,
        RD_KAFKA_RESP_ERR_STALE_MEMBER_EPOCH, RD_KAFKA_RESP_ERR_UNKNOWN_SUBSCRIPTION_ID,
        RD_KAFKA_RESP_ERR_TELEMETRY_TOO_LARGE, RD_KAFKA_RESP_ERR__LOG_TRUNCATION}) {
    EXPECT_EQ(ClassifyError(err), ErrorVerdict::kReplay) << rd_kafka_err2name(err);
    EXPECT_EQ(OperatorErrorMessage(err, "r", false), std::nullopt) << rd_kafka_err2name(err);
  }
}

// Errors as librdkafka's transactional API returns them: a code plus fatal / abortable /
// retriable flags (rd_kafka_error_new builds a plain one; the flags come from the mock below).
using ErrorPtr = std::unique_ptr<rd_kafka_error_t, decltype(&rd_kafka_error_destroy)>;

ErrorPtr PlainError(rd_kafka_resp_err_t err) {
  return ErrorPtr(rd_kafka_error_new(err, "%s", "test"), &rd_kafka_error_destroy);
}

TEST(ClassifyTransactionErrorTest, FencedCodesAreFenced) {
  EXPECT_EQ(ClassifyTransactionError(PlainError(RD_KAFKA_RESP_ERR__FENCED).get()),
            ErrorVerdict::kFenced);
  EXPECT_EQ(ClassifyTransactionError(PlainError(RD_KAFKA_RESP_ERR_PRODUCER_FENCED).get()),
            ErrorVerdict::kFenced);
}

TEST(ClassifyTransactionErrorTest, NeitherFatalNorAbortableReplays) {
  // A timed-out commit is retriable in librdkafka but ambiguous without KIP-890: rebuild.
  EXPECT_EQ(ClassifyTransactionError(PlainError(RD_KAFKA_RESP_ERR__TIMED_OUT).get()),
            ErrorVerdict::kReplay);
  EXPECT_EQ(ClassifyTransactionError(PlainError(RD_KAFKA_RESP_ERR__STATE).get()),
            ErrorVerdict::kReplay);
  EXPECT_EQ(ClassifyTransactionError(
                PlainError(RD_KAFKA_RESP_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED).get()),
            ErrorVerdict::kOperatorError);
  // A record-level code on a transactional call is not a dead-letter decision.
  EXPECT_EQ(ClassifyTransactionError(PlainError(RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE).get()),
            ErrorVerdict::kReplay);
}

TEST(ClassifyErrorTest, EveryCodeLibrdkafkaKnowsHasAVerdict) {
  // Codes outside the switch fall back to a replay; none of librdkafka's own may.
  const rd_kafka_err_desc* descs = nullptr;
  size_t count = 0;
  rd_kafka_get_err_descs(&descs, &count);
  int named = 0;
  for (size_t i = 0; i < count; ++i) {
    if (descs[i].name == nullptr) continue;
    ++named;
    const ErrorVerdict verdict = ClassifyError(descs[i].code);
    EXPECT_TRUE(verdict == ErrorVerdict::kRecordRejected || verdict == ErrorVerdict::kReplay ||
                verdict == ErrorVerdict::kOperatorError || verdict == ErrorVerdict::kFenced);
    // Only the transactional API's flags make an error abortable, never a bare code.
    EXPECT_NE(verdict, ErrorVerdict::kAbortTransaction) << descs[i].name;
  }
  EXPECT_GT(named, 150);
}

TEST(OperatorErrorMessageTest, SecurityFailuresNameCauseAndFix) {
  for (rd_kafka_resp_err_t err :
       {RD_KAFKA_RESP_ERR__AUTHENTICATION, RD_KAFKA_RESP_ERR__SSL,
        RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED, RD_KAFKA_RESP_ERR_UNSUPPORTED_SASL_MECHANISM,
        RD_KAFKA_RESP_ERR_ILLEGAL_SASL_STATE}) {
    const std::optional<std::string> message =
        OperatorErrorMessage(err, "SASL handshake failed", false);
    ASSERT_TRUE(message.has_value()) << rd_kafka_err2name(err);
    EXPECT_THAT(*message, AllOf(HasSubstr("Kafka authentication failed: SASL handshake failed"),
                                HasSubstr(rd_kafka_err2name(err)),
                                HasSubstr("check security.protocol, sasl.* and ssl.* in [kafka]")));
  }
}

TEST(OperatorErrorMessageTest, AuthorizationNamesTheAcl) {
  const std::optional<std::string> cluster =
      OperatorErrorMessage(RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED, "denied", false);
  ASSERT_TRUE(cluster.has_value());
  EXPECT_THAT(*cluster, AllOf(HasSubstr("not authorized"), HasSubstr("IdempotentWrite")));
  EXPECT_THAT(OperatorFix(RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED, "outbox.event.Order"),
              AllOf(HasSubstr("Write"), HasSubstr("--topic outbox.event.Order")));
}

TEST(OperatorErrorMessageTest, OutagesAndRecordFaultsAreNot) {
  for (rd_kafka_resp_err_t err :
       {RD_KAFKA_RESP_ERR__TRANSPORT, RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN,
        RD_KAFKA_RESP_ERR__RESOLVE, RD_KAFKA_RESP_ERR__FATAL, RD_KAFKA_RESP_ERR__TIMED_OUT,
        RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE}) {
    EXPECT_EQ(OperatorErrorMessage(err, "x", false), std::nullopt) << rd_kafka_err2name(err);
  }
}

// What librdkafka 2.8.0 reports when security.protocol = SSL meets a PLAINTEXT listener.
constexpr char kTlsAtPlaintext[] =
    "ssl://127.0.0.1:9092/bootstrap: SSL handshake failed: Disconnected: connecting to a "
    "PLAINTEXT broker listener? (after 1ms in state SSL_HANDSHAKE)";

TEST(OperatorErrorMessageTest, TlsAtAPlaintextListenerBeforeAnyBrokerNamesTheFix) {
  const std::optional<std::string> message =
      OperatorErrorMessage(RD_KAFKA_RESP_ERR__TRANSPORT, kTlsAtPlaintext, /*reached_broker=*/false);
  ASSERT_TRUE(message.has_value());
  EXPECT_THAT(*message, AllOf(HasSubstr(kTlsAtPlaintext), HasSubstr("_TRANSPORT"),
                              HasSubstr("speaks PLAINTEXT"),
                              HasSubstr("check security.protocol, sasl.* and ssl.* in [kafka]")));
}

TEST(OperatorErrorMessageTest, TlsAtAPlaintextListenerAfterABrokerAnsweredIsAnOutage) {
  // The same words for a broker that went away mid-handshake: a running relay retries.
  EXPECT_EQ(OperatorErrorMessage(RD_KAFKA_RESP_ERR__TRANSPORT, kTlsAtPlaintext, true),
            std::nullopt);
}

TEST(OperatorErrorMessageTest, OtherTransportFailuresBeforeAnyBrokerAreOutages) {
  for (const char* reason :
       {"127.0.0.1:9092/bootstrap: Connect to ipv4#127.0.0.1:9092 failed: Connection refused",
        "ssl://127.0.0.1:9092/bootstrap: Disconnected (after 1ms in state SSL_HANDSHAKE)"}) {
    EXPECT_EQ(OperatorErrorMessage(RD_KAFKA_RESP_ERR__TRANSPORT, reason, false), std::nullopt)
        << reason;
  }
}

TEST(TlsAtPlaintextListenerTest, NeedsTheHintAndATransportOrSslCode) {
  EXPECT_TRUE(TlsAtPlaintextListener(RD_KAFKA_RESP_ERR__TRANSPORT, kTlsAtPlaintext));
  EXPECT_TRUE(TlsAtPlaintextListener(RD_KAFKA_RESP_ERR__SSL, kTlsAtPlaintext));  // 2.0.2
  EXPECT_FALSE(TlsAtPlaintextListener(RD_KAFKA_RESP_ERR__TRANSPORT, "Connection refused"));
  EXPECT_FALSE(TlsAtPlaintextListener(RD_KAFKA_RESP_ERR__RESOLVE, kTlsAtPlaintext));
}

// Delivery reports from librdkafka's mock cluster, with broker errors injected on Produce.
class MockClusterTest : public ::testing::Test, public DeliveryHandler {
 protected:
  void SetUp() override {
    char errstr[256];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "log_level", "0", errstr, sizeof errstr);
    cluster_owner_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
    ASSERT_NE(cluster_owner_, nullptr) << errstr;
    cluster_ = rd_kafka_mock_cluster_new(cluster_owner_, 1);
    ASSERT_NE(cluster_, nullptr);
    ASSERT_EQ(rd_kafka_mock_topic_create(cluster_, topic_.c_str(), 1, 1),
              RD_KAFKA_RESP_ERR_NO_ERROR);
  }
  void TearDown() override {
    producer_.reset();
    if (cluster_ != nullptr) rd_kafka_mock_cluster_destroy(cluster_);
    if (cluster_owner_ != nullptr) rd_kafka_destroy(cluster_owner_);
  }

  // Produces one record with `err` injected into the broker's next Produce responses
  // (enough of them to outlast librdkafka's own retries) and waits for its report.
  void ProduceWith(rd_kafka_resp_err_t err) {
    auto producer = CreateProducer(
        {{"bootstrap.servers", rd_kafka_mock_cluster_bootstraps(cluster_)}, {"log_level", "0"}},
        *this);
    ASSERT_TRUE(producer.ok()) << producer.status();
    producer_ = std::move(*producer);
    // Kafka's API key 0 is Produce.
    rd_kafka_mock_push_request_errors(cluster_, 0, 3, err, err, err);
    ASSERT_TRUE(
        producer_->Produce({.topic = topic_, .key = "k", .value = "v", .headers = {}}, 7).ok());
    for (int i = 0; i < 200 && !failure_ && !delivered_; ++i) producer_->Flush(50);
  }

  void OnDelivered(uint64_t) override { delivered_ = true; }
  void OnFailed(uint64_t tag, const DeliveryFailure& failure) override {
    EXPECT_EQ(tag, 7u);
    failure_ = Copy{failure.verdict, std::string(failure.code), std::string(failure.topic),
                    failure.operator_fix};
  }

  struct Copy {
    ErrorVerdict verdict;
    std::string code;
    std::string topic;
    std::string fix;
  };
  const std::string topic_ = "outbox.event.Order";
  rd_kafka_t* cluster_owner_ = nullptr;
  rd_kafka_mock_cluster_t* cluster_ = nullptr;
  std::unique_ptr<Producer> producer_;
  std::optional<Copy> failure_;
  bool delivered_ = false;
};

TEST_F(MockClusterTest, TopicAuthorizationFailureIsAnOperatorErrorNamingTheAcl) {
  ProduceWith(RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED);
  ASSERT_TRUE(failure_.has_value()) << "delivered: " << delivered_;
  EXPECT_EQ(failure_->verdict, ErrorVerdict::kOperatorError);
  EXPECT_EQ(failure_->code, "TOPIC_AUTHORIZATION_FAILED");
  EXPECT_EQ(failure_->topic, topic_);
  EXPECT_THAT(failure_->fix, HasSubstr("--topic outbox.event.Order"));
}

TEST_F(MockClusterTest, RecordTooLargeIsDeadLettered) {
  ProduceWith(RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE);
  ASSERT_TRUE(failure_.has_value()) << "delivered: " << delivered_;
  EXPECT_EQ(failure_->verdict, ErrorVerdict::kRecordRejected);
  EXPECT_EQ(failure_->code, "MSG_SIZE_TOO_LARGE");
  EXPECT_EQ(failure_->fix, "");
}

}  // namespace
}  // namespace outboxd::kafka
