#include "relay/ack_tracker.h"

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "gtest/gtest.h"

namespace outboxd::relay {
namespace {

TEST(AckTrackerTest, NothingIsSafeBeforeTheFirstCommit) {
  AckTracker tracker;
  EXPECT_TRUE(tracker.Idle());
  EXPECT_FALSE(tracker.safe_lsn().IsValid());
  const auto tx = tracker.Begin();
  tracker.AddRecord();
  EXPECT_FALSE(tracker.Idle());
  tracker.Acknowledge(tx);  // Acked before its Commit arrived: still not safe.
  EXPECT_FALSE(tracker.safe_lsn().IsValid());
  tracker.Commit(Lsn(100));
  EXPECT_EQ(tracker.safe_lsn(), Lsn(100));
  EXPECT_TRUE(tracker.Idle());
}

TEST(AckTrackerTest, MultiRecordTransactionIsSafeOnlyWhenAllRecordsAreAcked) {
  AckTracker tracker;
  const auto tx = tracker.Begin();
  for (int i = 0; i < 3; ++i) tracker.AddRecord();
  tracker.Commit(Lsn(50));
  tracker.Acknowledge(tx);
  tracker.Acknowledge(tx);
  EXPECT_FALSE(tracker.safe_lsn().IsValid());
  EXPECT_EQ(tracker.outstanding_records(), 1u);
  tracker.Acknowledge(tx);
  EXPECT_EQ(tracker.safe_lsn(), Lsn(50));
}

TEST(AckTrackerTest, OutOfOrderReportsHoldTheWatermarkAtTheOldestPending) {
  AckTracker tracker;
  std::vector<AckTracker::TxId> txs;
  for (uint64_t i = 1; i <= 3; ++i) {
    txs.push_back(tracker.Begin());
    tracker.AddRecord();
    tracker.Commit(Lsn(i * 10));
  }
  tracker.Acknowledge(txs[2]);
  tracker.Acknowledge(txs[1]);
  EXPECT_FALSE(tracker.safe_lsn().IsValid()) << "tx 1 is still pending";
  tracker.Acknowledge(txs[0]);
  EXPECT_EQ(tracker.safe_lsn(), Lsn(30));
  EXPECT_TRUE(tracker.Idle());
}

TEST(AckTrackerTest, EmptyTransactionsFollowTheirPredecessorAndDoNotAccumulate) {
  AckTracker tracker;
  const auto first = tracker.Begin();
  tracker.AddRecord();
  tracker.Commit(Lsn(10));
  for (uint64_t i = 0; i < 1000; ++i) {
    tracker.Begin();
    tracker.Commit(Lsn(20 + i));
  }
  EXPECT_EQ(tracker.pending_transactions(), 1u);
  EXPECT_FALSE(tracker.safe_lsn().IsValid());
  tracker.Acknowledge(first);
  EXPECT_EQ(tracker.safe_lsn(), Lsn(20 + 999));
}

TEST(AckTrackerTest, EmptyTransactionAloneIsSafeAtOnce) {
  AckTracker tracker;
  tracker.Begin();
  EXPECT_TRUE(tracker.InTransaction());
  EXPECT_FALSE(tracker.Idle());
  tracker.Commit(Lsn(7));
  EXPECT_EQ(tracker.safe_lsn(), Lsn(7));
}

TEST(AckTrackerTest, OpenTransactionBlocksLaterOnesButNotEarlierOnes) {
  AckTracker tracker;
  const auto a = tracker.Begin();
  tracker.AddRecord();
  tracker.Commit(Lsn(10));
  const auto b = tracker.Begin();
  tracker.AddRecord();
  tracker.Acknowledge(b);
  tracker.Acknowledge(a);
  EXPECT_EQ(tracker.safe_lsn(), Lsn(10));
  EXPECT_FALSE(tracker.Idle()) << "b is still open";
  tracker.Commit(Lsn(20));
  EXPECT_EQ(tracker.safe_lsn(), Lsn(20));
}

TEST(AckTrackerTest, RandomisedReportOrderNeverPassesAnUnackedTransaction) {
  AckTracker tracker;
  std::vector<std::pair<AckTracker::TxId, uint64_t>> records;  // (tx, end lsn)
  for (uint64_t i = 1; i <= 200; ++i) {
    const auto tx = tracker.Begin();
    for (uint64_t r = 0; r < i % 4; ++r) {
      tracker.AddRecord();
      records.emplace_back(tx, i * 100);
    }
    tracker.Commit(Lsn(i * 100));
  }
  std::mt19937 rng(42);
  std::shuffle(records.begin(), records.end(), rng);
  std::multiset<uint64_t> unacked;
  for (const auto& [tx, lsn] : records) unacked.insert(lsn);
  for (const auto& [tx, lsn] : records) {
    tracker.Acknowledge(tx);
    unacked.erase(unacked.find(lsn));
    if (!unacked.empty()) {
      EXPECT_LT(tracker.safe_lsn().value(), *unacked.begin());
    }
  }
  EXPECT_EQ(tracker.safe_lsn(), Lsn(200 * 100));
}

}  // namespace
}  // namespace outboxd::relay
