// A replay that Kafka already has: after a Postgres crash moves the slot back to its last
// checkpoint, the transactions (and standalone messages) the position record covers are passed
// over, while their Relation messages still reach the mapper and everything after is published.

#include "relay/change_handler.h"

#include <map>
#include <vector>

#include "encoding/encoder_factory.h"
#include "fakes.h"
#include "gtest/gtest.h"
#include "support/pgoutput_encoder.h"

namespace outboxd::relay {
namespace {

using namespace outboxd::relay::testing;

constexpr RelationId kOutbox{16384};
constexpr uint32_t kText = 25;
constexpr int64_t kCommitTime = FakeClock::kStartMicros;

config::Config TestConfig() {
  config::Config config;
  config.postgres.tables = {{"public", "outbox"}};
  config.postgres.message_prefixes = {"outbox"};
  config.outbox.position_headers = true;
  return config;
}

class ChangeHandlerReplayTest : public ::testing::Test {
 protected:
  ChangeHandlerReplayTest() {
    auto publisher = Publisher::Create(
        [this](kafka::DeliveryHandler& h,
               int /*slot_index*/) -> absl::StatusOr<std::unique_ptr<kafka::Producer>> {
          return std::unique_ptr<kafka::Producer>(
              std::make_unique<FakeProducer>(h, clock_, topics_, produced_, acks_));
        },
        config_, clock_, metrics_);
    EXPECT_TRUE(publisher.ok()) << publisher.status();
    publisher_ = std::move(*publisher);
    stream_ = publisher_->Attach(tracker_);
    handler_ = std::make_unique<ChangeHandler>(config_, *encoder_, *publisher_, stream_, tracker_,
                                               clock_, metrics_);
  }

  absl::Status Feed(Lsn at, const std::string& message) {
    pg::CopyBuffer buffer(message);
    const std::string_view data = buffer.view();
    WalMessage wal{
        .buffer = std::move(buffer), .wal_start = at, .data = data, .received = clock_.SteadyNow()};
    return handler_->Handle(wal);
  }
  // One transaction whose commit record starts at `commit` and ends 0x10 later, with `rows`
  // outbox rows whose aggregate ids name the transaction; without its Commit unless `commit_it`.
  void Transaction(uint64_t commit, int rows, bool commit_it = true) {
    ASSERT_TRUE(
        Feed(Lsn(commit - 0x100), outboxd::testing::EncodeBegin(Lsn(commit), kCommitTime, Xid{9}))
            .ok());
    ASSERT_TRUE(
        Feed(Lsn(commit - 0xf0), outboxd::testing::EncodeRelation(kOutbox, "public", "outbox", 'd',
                                                                  {{0, "id", kText, -1},
                                                                   {0, "aggregatetype", kText, -1},
                                                                   {0, "aggregateid", kText, -1},
                                                                   {0, "type", kText, -1},
                                                                   {0, "payload", kText, -1}}))
            .ok());
    for (int i = 0; i < rows; ++i) {
      ASSERT_TRUE(
          Feed(Lsn(commit - 0x80 + i),
               outboxd::testing::EncodeInsert(
                   kOutbox,
                   outboxd::testing::EncodeTupleData(std::vector<std::optional<std::string>>{
                       std::to_string(i), "Order", std::to_string(commit), "Created", "{}"})))
              .ok());
    }
    if (!commit_it) return;
    ASSERT_TRUE(Feed(Lsn(commit),
                     outboxd::testing::EncodeCommit(Lsn(commit), Lsn(commit + 0x10), kCommitTime))
                    .ok());
  }
  std::vector<std::string> ProducedKeys() const {
    std::vector<std::string> keys;
    for (const auto& r : produced_) keys.push_back(r.key.value_or("<null>"));
    return keys;
  }

  config::Config config_ = TestConfig();
  FakeClock clock_;
  metrics::RelayMetrics metrics_;
  std::map<std::string, TopicBehaviour> topics_;
  std::vector<ProducedRecord> produced_;
  bool acks_ = true;
  std::unique_ptr<const outbox::Encoder> encoder_ = encoding::CreateEncoder(config_.outbox, "run");
  std::unique_ptr<Publisher> publisher_;
  AckTracker tracker_;
  StreamId stream_ = 0;
  std::unique_ptr<ChangeHandler> handler_;
};

TEST_F(ChangeHandlerReplayTest, TransactionsEndingAtOrBelowThePositionRecordAreNotPublishedAgain) {
  // The record says Kafka has everything up to the end of the transaction committing at 0x2000.
  handler_->SkipPublishedUpTo(Lsn(0x2010));
  Transaction(0x1000, 2);  // Ends at 0x1010: skipped.
  Transaction(0x2000, 3);  // Ends exactly at the record: skipped.
  Transaction(0x3000, 1);  // Ends past it: published.
  EXPECT_EQ(ProducedKeys(), std::vector<std::string>{std::to_string(0x3000)});
  EXPECT_EQ(metrics_.Slot(config_.postgres.slot).replayed_transactions_skipped.value(), 2u);
  // The skipped transactions still move the confirmable position.
  EXPECT_EQ(metrics_.Slot(config_.postgres.slot).transactions.value(), 3u);
}

TEST_F(ChangeHandlerReplayTest, ASplitTransactionResumesAfterItsPublishedEvents) {
  // exactly_once committed the first 3 events of the transaction committing at 0x2000 before
  // a crash; everything before it was complete.
  handler_->SkipPublishedUpTo(Lsn(0x1010), {.commit_lsn = Lsn(0x2000), .events = 3});
  Transaction(0x1000, 2);  // Skipped whole.
  Transaction(0x2000, 5);  // Its last 2 events only.
  Transaction(0x3000, 1);  // In full.
  EXPECT_EQ(ProducedKeys(),
            (std::vector<std::string>{std::to_string(0x2000), std::to_string(0x2000),
                                      std::to_string(0x3000)}));
  // The ordinals the position headers carry are the ones the position record counts.
  ASSERT_EQ(produced_.size(), 3u);
  EXPECT_EQ(produced_[0].headers["outboxd.commit_lsn"], "0/2000");
  EXPECT_EQ(produced_[0].headers["outboxd.ordinal"], "3");
  EXPECT_EQ(produced_[1].headers["outboxd.ordinal"], "4");
  EXPECT_EQ(produced_[2].headers["outboxd.commit_lsn"], "0/3000");
  EXPECT_EQ(produced_[2].headers["outboxd.ordinal"], "0");
  EXPECT_EQ(produced_[2].headers["outboxd.slot"], config_.postgres.slot);
}

// Parallel slots split one Postgres transaction's events over several slots, each numbering
// its share from 0: the header names the stream's own slot, so (slot, commit LSN, ordinal)
// stays unique. It named [postgres] slot, the same for every stream.
TEST_F(ChangeHandlerReplayTest, PositionHeadersNameTheStreamsOwnSlot) {
  handler_ = std::make_unique<ChangeHandler>(config_, *encoder_, *publisher_, stream_, tracker_,
                                             clock_, metrics_, "outboxd_3");
  Transaction(0x1000, 1);
  ASSERT_EQ(produced_.size(), 1u);
  EXPECT_EQ(produced_[0].headers["outboxd.slot"], "outboxd_3");
}

TEST_F(ChangeHandlerReplayTest, TheOpenTransactionsProgressCountsEveryEventHandedToKafka) {
  handler_->SkipPublishedUpTo(Lsn(0x1010), {.commit_lsn = Lsn(0x2000), .events = 2});
  Transaction(0x2000, 5, /*commit_it=*/false);
  // The 2 skipped count: a split now records 5, and a restart skips all of them.
  EXPECT_EQ(handler_->OpenTransactionProgress(),
            (position::PartialTransaction{.commit_lsn = Lsn(0x2000), .events = 5}));
  EXPECT_EQ(produced_.size(), 3u);
}

TEST_F(ChangeHandlerReplayTest, WithoutARecordEveryTransactionIsPublished) {
  Transaction(0x1000, 2);
  Transaction(0x2000, 1);
  EXPECT_EQ(produced_.size(), 3u);
  EXPECT_EQ(metrics_.Slot(config_.postgres.slot).replayed_transactions_skipped.value(), 0u);
}

TEST_F(ChangeHandlerReplayTest, ARecordThatEndsInsideTheReplayStopsSkippingForGood) {
  handler_->SkipPublishedUpTo(Lsn(0x1010));
  Transaction(0x1000, 1);  // Skipped.
  Transaction(0x2000, 1);  // Published: the replay is over.
  // A later transaction below the old record cannot exist; the handler no longer compares.
  EXPECT_EQ(ProducedKeys(), std::vector<std::string>{std::to_string(0x2000)});
}

TEST_F(ChangeHandlerReplayTest, StandaloneMessagesBelowTheRecordAreSkipped) {
  handler_->SkipPublishedUpTo(Lsn(0x1001));
  // Confirmed as one past its own LSN: 0x1000 is covered by a record at 0x1001, 0x1001 is not.
  ASSERT_TRUE(
      Feed(Lsn(0x1000), outboxd::testing::EncodeMessage(false, Lsn(0x1000), "outbox", "{\"n\":1}"))
          .ok());
  ASSERT_TRUE(
      Feed(Lsn(0x1001), outboxd::testing::EncodeMessage(false, Lsn(0x1001), "outbox", "{\"n\":2}"))
          .ok());
  ASSERT_EQ(produced_.size(), 1u);
  EXPECT_EQ(produced_[0].value.value_or(""), "{\"n\":2}");
  EXPECT_EQ(metrics_.Slot(config_.postgres.slot).replayed_transactions_skipped.value(), 1u);
}

}  // namespace
}  // namespace outboxd::relay
