// One Publisher shared by two streams: each record's origin names its stream and transaction,
// so delivery results, in any order, reach the AckTracker of the stream that produced it.

#include "relay/publisher.h"

#include <algorithm>
#include <map>
#include <vector>

#include "fakes.h"
#include "gtest/gtest.h"

namespace outboxd::relay {
namespace {

using testing::FakeClock;

// A producer whose reports the test sends, in whatever order it likes.
class ManualProducer final : public kafka::Producer {
 public:
  explicit ManualProducer(kafka::DeliveryHandler& handler) : handler_(handler) {}
  absl::Status Produce(const kafka::Record& record, uint64_t tag) override {
    Produced p{.topic = record.topic, .tag = tag, .headers = {}};
    for (const Header& h : record.headers) {
      p.headers.emplace_back(std::string(h.name), h.value ? std::string(*h.value) : "<null>");
    }
    produced.push_back(std::move(p));
    return absl::OkStatus();
  }
  int event_fd() const override { return -1; }
  void Poll(bool /*event_fd_readable*/) override {}
  bool Flush(int /*timeout_ms*/) override { return true; }
  const std::optional<std::string>& fatal_error() const override { return none_; }
  const std::optional<std::string>& operator_error() const override { return none_; }
  bool brokers_down() const override { return false; }
  uint64_t retries() const override { return 0; }
  // exactly_once: a commit that takes `commit_takes` on the test's clock.
  absl::Status InitTransactions(int /*timeout_ms*/) override { return absl::OkStatus(); }
  absl::Status BeginTransaction() override { return absl::OkStatus(); }
  absl::Status CommitTransaction(int /*timeout_ms*/) override {
    if (clock != nullptr) clock->Advance(commit_takes);
    return absl::OkStatus();
  }

  void Deliver(size_t index) { handler_.OnDelivered(produced.at(index).tag); }
  void Reject(size_t index) {
    kafka::DeliveryFailure failure{.verdict = kafka::ErrorVerdict::kRecordRejected,
                                   .code = "MSG_SIZE_TOO_LARGE",
                                   .reason = "too large",
                                   .operator_fix = "",
                                   .topic = produced.at(index).topic,
                                   .key = std::nullopt,
                                   .value = std::nullopt,
                                   .headers = {}};
    handler_.OnFailed(produced.at(index).tag, failure);
  }

  struct Produced {
    std::string topic;
    uint64_t tag;
    std::vector<std::pair<std::string, std::string>> headers;  // Copied: views die.
  };
  std::vector<Produced> produced;
  FakeClock* clock = nullptr;
  std::chrono::milliseconds commit_takes{0};

 private:
  kafka::DeliveryHandler& handler_;
  std::optional<std::string> none_;
};

class SharedPublisherTest : public ::testing::Test {
 protected:
  SharedPublisherTest() { Recreate(); }

  // A new publisher (and producer) for the current config_.
  void Recreate() {
    publisher_.reset();
    auto publisher = Publisher::Create(
        [this](kafka::DeliveryHandler& handler,
               int /*slot_index*/) -> absl::StatusOr<std::unique_ptr<kafka::Producer>> {
          auto producer = std::make_unique<ManualProducer>(handler);
          producer->clock = &clock_;
          producer_ = producer.get();
          return std::unique_ptr<kafka::Producer>(std::move(producer));
        },
        config_, clock_, metrics_);
    EXPECT_TRUE(publisher.ok()) << publisher.status();
    publisher_ = std::move(*publisher);
    event_.topic = "outbox.event.Order";
    event_.value = "{}";
  }

  // Publishes one record of the open transaction `tx` of `stream`.
  void PublishRecord(StreamId stream, AckTracker::TxId tx) {
    const RecordOrigin origin{.stream = stream,
                              .tx = tx,
                              .lsn = Lsn(0x10),
                              .xid = Xid{7},
                              .relation = RelationId{16384},
                              .table = "public.outbox",
                              .commit_time_us = 0,
                              .received = clock_.SteadyNow()};
    ASSERT_TRUE(publisher_->Publish(event_, origin).ok());
  }

  config::Config config_;
  FakeClock clock_;
  metrics::RelayMetrics metrics_;
  std::unique_ptr<Publisher> publisher_;
  ManualProducer* producer_ = nullptr;
  outbox::OutboxEvent event_;
};

TEST_F(SharedPublisherTest, InterleavedOutOfOrderResultsReachTheStreamThatProducedEachRecord) {
  AckTracker a, b;
  const StreamId stream_a = publisher_->Attach(a);
  const StreamId stream_b = publisher_->Attach(b);
  ASSERT_NE(stream_a, stream_b);

  const auto a1 = a.Begin();
  PublishRecord(stream_a, a1);  // produced[0]
  const auto b1 = b.Begin();
  PublishRecord(stream_b, b1);  // produced[1]
  PublishRecord(stream_a, a1);  // produced[2]
  a.Commit(Lsn(0x100));
  b.Commit(Lsn(0x200));
  const auto a2 = a.Begin();
  PublishRecord(stream_a, a2);  // produced[3]
  a.Commit(Lsn(0x300));
  EXPECT_EQ(a.outstanding_records(), 3u);
  EXPECT_EQ(b.outstanding_records(), 1u);

  producer_->Deliver(3);  // A's second transaction first: A may confirm nothing yet.
  EXPECT_FALSE(a.safe_lsn().IsValid());
  producer_->Deliver(1);  // B's only record: B's transaction is covered, A's are not.
  EXPECT_EQ(b.safe_lsn(), Lsn(0x200));
  EXPECT_FALSE(a.safe_lsn().IsValid());
  producer_->Deliver(2);
  EXPECT_FALSE(a.safe_lsn().IsValid());
  producer_->Deliver(0);  // The last of A's first transaction covers both of A's.
  EXPECT_EQ(a.safe_lsn(), Lsn(0x300));
  EXPECT_EQ(b.safe_lsn(), Lsn(0x200));
  EXPECT_EQ(metrics_.events_published.With("outbox.event.Order").value(), 4u);
  EXPECT_EQ(publisher_->in_flight(), 0u);
}

TEST_F(SharedPublisherTest, ReportsForADetachedStreamReachNoTrackerAndHarmNoOther) {
  AckTracker old_stream, other;
  const StreamId gone = publisher_->Attach(old_stream);
  const StreamId live = publisher_->Attach(other);
  PublishRecord(gone, old_stream.Begin());  // produced[0]
  PublishRecord(live, other.Begin());       // produced[1]
  other.Commit(Lsn(0x500));
  publisher_->Detach(gone);  // Its successor replays the record from the confirmed LSN.

  producer_->Deliver(0);
  EXPECT_EQ(old_stream.outstanding_records(), 1u);  // Untouched: the tracker may be gone.
  producer_->Deliver(1);
  EXPECT_EQ(other.safe_lsn(), Lsn(0x500));
  EXPECT_TRUE(publisher_->status().ok());
  // A stream attached later never gets an id a detached stream had.
  AckTracker successor;
  EXPECT_NE(publisher_->Attach(successor), gone);
}

TEST_F(SharedPublisherTest, ARejectedRecordBecomesADeadLetterOfItsOwnStream) {
  AckTracker a, b;
  const StreamId stream_a = publisher_->Attach(a);
  const StreamId stream_b = publisher_->Attach(b);
  PublishRecord(stream_a, a.Begin());  // produced[0]
  a.Commit(Lsn(0x100));
  PublishRecord(stream_b, b.Begin());  // produced[1]
  b.Commit(Lsn(0x200));

  producer_->Reject(1);
  EXPECT_TRUE(publisher_->dead_letters_waiting(stream_b));
  EXPECT_FALSE(publisher_->dead_letters_waiting(stream_a));
  ASSERT_TRUE(publisher_->ProduceDeadLetters().ok());
  ASSERT_EQ(producer_->produced.size(), 3u);
  EXPECT_EQ(producer_->produced[2].topic, config_.outbox.dead_letter_topic);
  const auto& headers = producer_->produced[2].headers;
  const auto table = std::find_if(headers.begin(), headers.end(),
                                  [](const auto& h) { return h.first == outbox::kTableHeader; });
  ASSERT_NE(table, headers.end());
  EXPECT_EQ(table->second, "public.outbox");  // From the origin: the publisher has no Mapper.

  EXPECT_FALSE(b.safe_lsn().IsValid());  // The dead letter stands for the row until acknowledged.
  producer_->Deliver(2);
  EXPECT_EQ(b.safe_lsn(), Lsn(0x200));
  EXPECT_FALSE(a.safe_lsn().IsValid());
}

TEST_F(SharedPublisherTest, DetachingDropsTheStreamsQueuedDeadLettersOnly) {
  AckTracker a, b;
  const StreamId stream_a = publisher_->Attach(a);
  const StreamId stream_b = publisher_->Attach(b);
  PublishRecord(stream_a, a.Begin());
  PublishRecord(stream_b, b.Begin());
  producer_->Reject(0);
  producer_->Reject(1);
  publisher_->Detach(stream_a);
  EXPECT_FALSE(publisher_->dead_letters_waiting(stream_a));
  EXPECT_TRUE(publisher_->dead_letters_waiting(stream_b));
}

// exactly_once: where a Kafka transaction's time goes, per transaction
// (outboxd_kafka_transaction_phase_seconds): begun to its first acknowledgement, closed to its
// last, and the commit_transaction call.
TEST_F(SharedPublisherTest, TimesEachPhaseOfAKafkaTransaction) {
  config_.relay.delivery = config::Delivery::kExactlyOnce;
  Recreate();
  AckTracker tracker;
  const StreamId stream = publisher_->Attach(tracker);
  producer_->commit_takes = std::chrono::milliseconds(7);
  const auto tx = tracker.Begin();
  PublishRecord(stream, tx);  // Begins the Kafka transaction.
  PublishRecord(stream, tx);
  clock_.Advance(std::chrono::milliseconds(3));
  producer_->Deliver(0);
  producer_->Deliver(1);  // Not closed yet: no last_ack.
  PublishRecord(stream, tx);
  ASSERT_TRUE(publisher_->CloseTransaction(std::nullopt).ok());
  clock_.Advance(std::chrono::milliseconds(5));
  EXPECT_FALSE(publisher_->CommitReady());
  producer_->Deliver(2);
  ASSERT_TRUE(publisher_->CommitReady());
  ASSERT_TRUE(publisher_->CommitClosedTransaction().ok());

  const metrics::TransactionPhaseMetrics& phases = metrics_.transaction_phases;
  EXPECT_EQ(phases.first_ack.Read().count, 1u);
  EXPECT_DOUBLE_EQ(phases.first_ack.Read().sum, 0.003);
  EXPECT_EQ(phases.last_ack.Read().count, 1u);
  EXPECT_DOUBLE_EQ(phases.last_ack.Read().sum, 0.005);
  EXPECT_EQ(phases.commit_call.Read().count, 1u);
  EXPECT_DOUBLE_EQ(phases.commit_call.Read().sum, 0.007);

  // The next transaction is timed from its own beginning.
  const auto tx2 = tracker.Begin();
  clock_.Advance(std::chrono::milliseconds(100));
  PublishRecord(stream, tx2);
  clock_.Advance(std::chrono::milliseconds(2));
  producer_->Deliver(3);
  EXPECT_EQ(phases.first_ack.Read().count, 2u);
  EXPECT_DOUBLE_EQ(phases.first_ack.Read().sum, 0.005);
  EXPECT_EQ(phases.last_ack.Read().count, 1u);
}

TEST_F(SharedPublisherTest, NoClosedTransactionCommitsAsIfItHad) {
  // A stream that closed a transaction later abandoned (a failure in between) must not confirm
  // the LSN it held: an OK here would let it (invariant 1).
  EXPECT_TRUE(absl::IsUnavailable(publisher_->CommitClosedTransaction()));
}

}  // namespace
}  // namespace outboxd::relay
