// ReadLatestValue against librdkafka's mock cluster: the newest value of a key, tombstones,
// a missing topic, committed transactions. That an aborted transaction's record is never seen
// (read_committed) needs a real broker: librdkafka 2.0.2's mock cluster sends no aborted
// transactions in its Fetch answers, so it shows them to every reader.

#include "kafka/topic_reader.h"

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <string>

#include "gtest/gtest.h"
#include "kafka/client.h"

namespace outboxd::kafka {
namespace {

class TopicReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto owner = NewClient(RD_KAFKA_PRODUCER, *BuildConf({{"log_level", "0"}}));
    ASSERT_TRUE(owner.ok()) << owner.status();
    cluster_owner_ = *std::move(owner);
    cluster_ = rd_kafka_mock_cluster_new(cluster_owner_.get(), 1);
    ASSERT_NE(cluster_, nullptr);
    ASSERT_EQ(rd_kafka_mock_topic_create(cluster_, topic_.c_str(), 1, 1),
              RD_KAFKA_RESP_ERR_NO_ERROR);
    properties_ = {{"bootstrap.servers", rd_kafka_mock_cluster_bootstraps(cluster_)}};
  }
  void TearDown() override {
    producer_.reset();
    if (cluster_ != nullptr) rd_kafka_mock_cluster_destroy(cluster_);
  }

  // A producer on the mock cluster; transactional when `transactional_id` is not empty.
  void StartProducer(const std::string& transactional_id = "") {
    Properties properties = properties_;
    properties.emplace_back("log_level", "0");
    if (!transactional_id.empty()) properties.emplace_back("transactional.id", transactional_id);
    auto rk = NewClient(RD_KAFKA_PRODUCER, *BuildConf(properties));
    ASSERT_TRUE(rk.ok()) << rk.status();
    producer_ = *std::move(rk);
    if (!transactional_id.empty()) {
      Owned<rd_kafka_error_t> error(rd_kafka_init_transactions(producer_.get(), 10'000));
      ASSERT_EQ(error, nullptr) << rd_kafka_error_string(error.get());
    }
  }

  // Produces key=value (value nullptr: a tombstone) and waits until it is acknowledged.
  void Put(const std::string& key, const char* value) {
    ASSERT_EQ(rd_kafka_producev(
                  producer_.get(), RD_KAFKA_V_TOPIC(topic_.c_str()),
                  RD_KAFKA_V_KEY(key.data(), key.size()),
                  RD_KAFKA_V_VALUE(const_cast<char*>(value), value ? std::string(value).size() : 0),
                  RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END),
              RD_KAFKA_RESP_ERR_NO_ERROR);
  }
  void Flush() { ASSERT_EQ(rd_kafka_flush(producer_.get(), 10'000), RD_KAFKA_RESP_ERR_NO_ERROR); }

  absl::StatusOr<LatestValue> Read(const std::string& key) {
    return ReadLatestValue(properties_, topic_, key, 10'000);
  }

  const std::string topic_ = "outboxd.positions";
  Owned<rd_kafka_t> cluster_owner_;
  rd_kafka_mock_cluster_t* cluster_ = nullptr;
  Properties properties_;
  Owned<rd_kafka_t> producer_;
};

TEST_F(TopicReaderTest, EmptyAndMissingTopicsHoldNothing) {
  auto empty = Read("slot_a");
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->value, std::nullopt);
  EXPECT_TRUE(empty->topic_exists);
  auto missing = ReadLatestValue(properties_, "no.such.topic", "slot_a", 10'000);
  ASSERT_TRUE(missing.ok()) << missing.status();
  EXPECT_EQ(missing->value, std::nullopt);
  EXPECT_FALSE(missing->topic_exists);
}

TEST_F(TopicReaderTest, TheNewestValueOfTheKeyWins) {
  StartProducer();
  Put("slot_a", "1");
  Put("slot_b", "2");
  Put("slot_a", "3");
  Put("slot_b", "4");
  Flush();
  auto a = Read("slot_a");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->value, "3");
  auto c = Read("slot_c");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->value, std::nullopt);
}

TEST_F(TopicReaderTest, ATombstoneDeletesTheValue) {
  StartProducer();
  Put("slot_a", "1");
  Put("slot_a", nullptr);
  Flush();
  auto a = Read("slot_a");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->value, std::nullopt);
}

TEST_F(TopicReaderTest, CommittedTransactionsAreRead) {
  StartProducer("outboxd-test");
  ASSERT_EQ(Owned<rd_kafka_error_t>(rd_kafka_begin_transaction(producer_.get())), nullptr);
  Put("slot_a", "committed");
  ASSERT_EQ(Owned<rd_kafka_error_t>(rd_kafka_commit_transaction(producer_.get(), 10'000)), nullptr);
  auto a = Read("slot_a");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->value, "committed");
}

TEST_F(TopicReaderTest, AnUnknownPropertyIsNamed) {
  properties_.emplace_back("ssl.no.such.thing", "1");
  auto a = Read("slot_a");
  EXPECT_EQ(a.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(a.status().message().find("[kafka] \"ssl.no.such.thing\""), std::string::npos)
      << a.status();
}

}  // namespace
}  // namespace outboxd::kafka
