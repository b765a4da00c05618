// The producer's decisions that need no broker: which properties CreateProducer refuses.
// No broker is involved there: bootstrap.servers is 127.0.0.1:1, which librdkafka's threads
// may try and which refuses at once; no assertion depends on that attempt. And what a fenced
// transactional producer answers, on librdkafka's mock cluster.

#include "kafka/producer.h"

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <chrono>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kafka/client.h"

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

TEST(ProducerFencingTest, AProduceAfterTheFenceSaysFencedSoTheRelayStopsInsteadOfFencingBack) {
  // A paused instance wakes up after another took its transactional.id: its next produce call
  // meets the fatal state before the error callback was served. Read as "rebuild the producer",
  // its InitTransactions fenced the new owner back (the chaos suite's SIGSTOP take-over).
  constexpr int16_t kAddPartitionsToTxn = 24;
  auto owner = NewClient(RD_KAFKA_PRODUCER, *BuildConf({{"log_level", "0"}}));
  ASSERT_TRUE(owner.ok()) << owner.status();
  rd_kafka_mock_cluster_t* cluster = rd_kafka_mock_cluster_new(owner->get(), 1);
  ASSERT_NE(cluster, nullptr);
  const std::string topic = "outbox.event.Order";
  ASSERT_EQ(rd_kafka_mock_topic_create(cluster, topic.c_str(), 1, 1), RD_KAFKA_RESP_ERR_NO_ERROR);
  NullHandler handler;
  auto producer = CreateTransactionalProducer(
      {{"bootstrap.servers", rd_kafka_mock_cluster_bootstraps(cluster)}, {"log_level", "0"}},
      "outboxd-slot", handler);
  ASSERT_TRUE(producer.ok()) << producer.status();
  ASSERT_TRUE((*producer)->InitTransactions(10'000).ok());
  ASSERT_TRUE((*producer)->BeginTransaction().ok());
  rd_kafka_mock_push_request_errors(cluster, kAddPartitionsToTxn, 1,
                                    RD_KAFKA_RESP_ERR_PRODUCER_FENCED);
  const Record record{.topic = topic, .key = "k", .value = "v", .headers = {}};
  absl::Status status = (*producer)->Produce(record, 1);
  ASSERT_TRUE(status.ok()) << status;
  // No Poll: the fatal error's callback stays unserved, as on a loop busy with the socket.
  for (uint64_t tag = 2; status.ok() && tag < 1000; ++tag) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    status = (*producer)->Produce(record, tag);
  }
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists) << status;
  EXPECT_THAT(MessageOf(status), HasSubstr("fenced"));
  EXPECT_TRUE((*producer)->fenced());
  producer->reset();
  rd_kafka_mock_cluster_destroy(cluster);
}

TEST(ProducerTransactionsTest, InitTransactionsTimingOutSaysSoAndTheNextCallResumes) {
  // Kafka down at start: each short attempt says DeadlineExceeded (so the relay can log and
  // listen for a stop between attempts), and once the broker is back a call completes.
  auto owner = NewClient(RD_KAFKA_PRODUCER, *BuildConf({{"log_level", "0"}}));
  ASSERT_TRUE(owner.ok()) << owner.status();
  rd_kafka_mock_cluster_t* cluster = rd_kafka_mock_cluster_new(owner->get(), 1);
  ASSERT_NE(cluster, nullptr);
  ASSERT_EQ(rd_kafka_mock_broker_set_down(cluster, 1), RD_KAFKA_RESP_ERR_NO_ERROR);
  NullHandler handler;
  auto producer = CreateTransactionalProducer(
      {{"bootstrap.servers", rd_kafka_mock_cluster_bootstraps(cluster)}, {"log_level", "0"}},
      "outboxd-slot", handler);
  ASSERT_TRUE(producer.ok()) << producer.status();
  const absl::Status down = (*producer)->InitTransactions(300);
  EXPECT_EQ(down.code(), absl::StatusCode::kDeadlineExceeded) << down;
  EXPECT_THAT(MessageOf(down), HasSubstr("no transaction coordinator answered"));
  EXPECT_TRUE((*producer)->InitTransactions(300).code() == absl::StatusCode::kDeadlineExceeded);
  ASSERT_EQ(rd_kafka_mock_broker_set_up(cluster, 1), RD_KAFKA_RESP_ERR_NO_ERROR);
  absl::Status up = absl::DeadlineExceededError("not called");
  for (int attempt = 0; attempt < 20 && absl::IsDeadlineExceeded(up); ++attempt) {
    up = (*producer)->InitTransactions(500);
  }
  EXPECT_TRUE(up.ok()) << up;
  EXPECT_TRUE((*producer)->BeginTransaction().ok());
  producer->reset();
  rd_kafka_mock_cluster_destroy(cluster);
}

}  // namespace
}  // namespace outboxd::kafka
