// ClassifyTransactionError on errors as librdkafka's transactional API really returns them
// (with their fatal / abortable flags), from a transactional producer on the mock cluster with
// broker errors injected.

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <string>

#include "gtest/gtest.h"
#include "kafka/client.h"
#include "kafka/delivery_error.h"

namespace outboxd::kafka {
namespace {

constexpr int16_t kAddPartitionsToTxn = 24;  // Kafka API keys.
constexpr int16_t kEndTxn = 26;

class TransactionErrorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto owner = NewClient(RD_KAFKA_PRODUCER, *BuildConf({{"log_level", "0"}}));
    ASSERT_TRUE(owner.ok()) << owner.status();
    cluster_owner_ = *std::move(owner);
    cluster_ = rd_kafka_mock_cluster_new(cluster_owner_.get(), 1);
    ASSERT_NE(cluster_, nullptr);
    ASSERT_EQ(rd_kafka_mock_topic_create(cluster_, topic_.c_str(), 1, 1),
              RD_KAFKA_RESP_ERR_NO_ERROR);
    auto rk =
        NewClient(RD_KAFKA_PRODUCER,
                  *BuildConf({{"bootstrap.servers", rd_kafka_mock_cluster_bootstraps(cluster_)},
                              {"transactional.id", "outboxd-slot"},
                              {"log_level", "0"}}));
    ASSERT_TRUE(rk.ok()) << rk.status();
    producer_ = *std::move(rk);
    Owned<rd_kafka_error_t> error(rd_kafka_init_transactions(producer_.get(), 10'000));
    ASSERT_EQ(error, nullptr) << rd_kafka_error_string(error.get());
  }
  void TearDown() override {
    producer_.reset();
    if (cluster_ != nullptr) rd_kafka_mock_cluster_destroy(cluster_);
  }

  // Begins a transaction, produces one record with `err` injected into the broker's answer to
  // AddPartitionsToTxn, and returns what commit_transaction says.
  Owned<rd_kafka_error_t> CommitWith(rd_kafka_resp_err_t err) {
    rd_kafka_mock_push_request_errors(cluster_, kAddPartitionsToTxn, 1, err);
    Owned<rd_kafka_error_t> begun(rd_kafka_begin_transaction(producer_.get()));
    EXPECT_EQ(begun, nullptr);
    rd_kafka_producev(producer_.get(), RD_KAFKA_V_TOPIC(topic_.c_str()), RD_KAFKA_V_KEY("k", 1),
                      RD_KAFKA_V_VALUE(const_cast<char*>("v"), 1), RD_KAFKA_V_END);
    return Owned<rd_kafka_error_t>(rd_kafka_commit_transaction(producer_.get(), 10'000));
  }

  const std::string topic_ = "outbox.event.Order";
  Owned<rd_kafka_t> cluster_owner_;
  rd_kafka_mock_cluster_t* cluster_ = nullptr;
  Owned<rd_kafka_t> producer_;
};

TEST_F(TransactionErrorTest, AnAbortableErrorAbortsTheTransaction) {
  Owned<rd_kafka_error_t> error = CommitWith(RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED);
  ASSERT_NE(error, nullptr);
  ASSERT_TRUE(rd_kafka_error_txn_requires_abort(error.get())) << rd_kafka_error_string(error.get());
  EXPECT_EQ(ClassifyTransactionError(error.get()), ErrorVerdict::kAbortTransaction);
  // The producer stays usable once the transaction is aborted.
  EXPECT_EQ(Owned<rd_kafka_error_t>(rd_kafka_abort_transaction(producer_.get(), 10'000)), nullptr);
}

TEST_F(TransactionErrorTest, AFencedProducerIsFenced) {
  Owned<rd_kafka_error_t> error = CommitWith(RD_KAFKA_RESP_ERR_PRODUCER_FENCED);
  ASSERT_NE(error, nullptr);
  EXPECT_TRUE(rd_kafka_error_is_fatal(error.get())) << rd_kafka_error_string(error.get());
  EXPECT_EQ(ClassifyTransactionError(error.get()), ErrorVerdict::kFenced)
      << rd_kafka_error_name(error.get());
}

TEST_F(TransactionErrorTest, AnOldBrokersFencingIsFencedToo) {
  // Brokers before KIP-588 answer a fenced producer with INVALID_PRODUCER_EPOCH.
  Owned<rd_kafka_error_t> error = CommitWith(RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(ClassifyTransactionError(error.get()), ErrorVerdict::kFenced)
      << rd_kafka_error_name(error.get()) << " fatal=" << rd_kafka_error_is_fatal(error.get());
}

TEST_F(TransactionErrorTest, ATimedOutCommitRebuildsTheProducerInsteadOfRetrying) {
  // The coordinator answers EndTxn after the commit's timeout. librdkafka calls that retriable,
  // but without KIP-890 (librdkafka issue 5423) a retried commit is ambiguous: the relay
  // replays from the confirmed LSN with a new producer, whose init aborts or completes it.
  rd_kafka_mock_broker_push_request_error_rtts(cluster_, 1, kEndTxn, 1, RD_KAFKA_RESP_ERR_NO_ERROR,
                                               3'000);
  Owned<rd_kafka_error_t> begun(rd_kafka_begin_transaction(producer_.get()));
  ASSERT_EQ(begun, nullptr);
  rd_kafka_producev(producer_.get(), RD_KAFKA_V_TOPIC(topic_.c_str()), RD_KAFKA_V_KEY("k", 1),
                    RD_KAFKA_V_VALUE(const_cast<char*>("v"), 1), RD_KAFKA_V_END);
  Owned<rd_kafka_error_t> error(rd_kafka_commit_transaction(producer_.get(), 500));
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(rd_kafka_error_code(error.get()), RD_KAFKA_RESP_ERR__TIMED_OUT)
      << rd_kafka_error_string(error.get());
  EXPECT_TRUE(rd_kafka_error_is_retriable(error.get()));
  EXPECT_EQ(ClassifyTransactionError(error.get()), ErrorVerdict::kReplay);
}

}  // namespace
}  // namespace outboxd::kafka
