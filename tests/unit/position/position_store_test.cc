// PositionStore against librdkafka's mock cluster: a position topic that Load found is not
// created again, so a principal without CREATE can use one made for it (and a first start
// does not pay CreateTopics' second).

#include "position/position_store.h"

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <cstdint>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "kafka/client.h"

namespace outboxd::position {
namespace {

// Kafka's API key of CreateTopics (librdkafka's kCreateTopics is not installed).
constexpr int16_t kCreateTopics = 19;

class PositionStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto owner = kafka::NewClient(RD_KAFKA_PRODUCER, *kafka::BuildConf({{"log_level", "0"}}));
    ASSERT_TRUE(owner.ok()) << owner.status();
    cluster_owner_ = *std::move(owner);
    cluster_ = rd_kafka_mock_cluster_new(cluster_owner_.get(), 1);
    ASSERT_NE(cluster_, nullptr);
    auto store = PositionStore::Create(
        {{"bootstrap.servers", rd_kafka_mock_cluster_bootstraps(cluster_)}, {"log_level", "0"}});
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
  }
  void TearDown() override {
    store_.reset();
    if (cluster_ != nullptr) rd_kafka_mock_cluster_destroy(cluster_);
  }

  // Every CreateTopics request from now on is refused as a principal without CREATE would be
  // (the mock cluster of librdkafka 2.8 does not answer CreateTopics at all: that fails too).
  void RefuseCreateTopics() {
    for (int i = 0; i < 8; ++i) {
      rd_kafka_mock_push_request_errors(cluster_, kCreateTopics, 1,
                                        RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED);
    }
  }

  kafka::Owned<rd_kafka_t> cluster_owner_;
  rd_kafka_mock_cluster_t* cluster_ = nullptr;
  std::unique_ptr<PositionStore> store_;
};

TEST_F(PositionStoreTest, ATopicLoadFoundIsNotCreatedAgain) {
  ASSERT_EQ(rd_kafka_mock_topic_create(cluster_, std::string(kDefaultTopic).c_str(), 1, 1),
            RD_KAFKA_RESP_ERR_NO_ERROR);
  RefuseCreateTopics();
  auto loaded = store_->Load("slot_a");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(*loaded, std::nullopt);
  EXPECT_TRUE(store_->EnsureTopic().ok()) << "CreateTopics was sent for a topic that exists";
}

}  // namespace
}  // namespace outboxd::position
