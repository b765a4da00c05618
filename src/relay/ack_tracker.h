#pragma once
// Low-watermark of fully acknowledged transactions (DESIGN.md invariant 1).

#include <cstdint>
#include <deque>
#include <optional>

#include "common/types.h"
#include "relay/confirm_source.h"

namespace outboxd::relay {

// Tracks, per transaction in commit order, how many records Kafka has yet to acknowledge, and
// yields the newest Commit.end_lsn that is safe to confirm: that transaction and every earlier
// one fully acknowledged. Delivery reports may arrive in any order.
// Not thread-safe: used only on the loop thread (delivery reports run inside rd_kafka_poll).
class AckTracker final : public ConfirmSource {
 public:
  // Identifies a transaction for the records produced in it; carried in each record's opaque.
  using TxId = uint64_t;

  // Opens the transaction a Begin announced, committed on the server at `commit_time_us`
  // (µs since 2000-01-01, from Begin). Requires !InTransaction().
  TxId Begin(int64_t commit_time_us = 0);
  // One more record of the open transaction was handed to Kafka. Requires InTransaction().
  void AddRecord();
  // The open transaction's Commit arrived. Requires InTransaction().
  void Commit(Lsn end_lsn);
  // Kafka acknowledged one record of `tx` (delivered, or replaced by its dead-letter record).
  // Requires a matching earlier AddRecord().
  void Acknowledge(TxId tx);

  // The newest Commit's end_lsn, acknowledged or not; invalid before the first.
  Lsn last_commit_lsn() const { return last_commit_lsn_; }
  // The newest end_lsn safe to confirm; invalid until the first transaction completes.
  Lsn safe_lsn() const override { return safe_lsn_; }
  bool InTransaction() const { return open_; }
  // True when no transaction is open and no record awaits acknowledgement.
  bool Idle() const override { return !open_ && entries_.empty(); }
  // Records handed to Kafka and not yet acknowledged, over all transactions.
  uint64_t outstanding_records() const { return outstanding_records_; }
  size_t pending_transactions() const { return entries_.size(); }
  // Records acknowledged since the tracker was made (progress lines).
  uint64_t acknowledged_records() const { return acknowledged_records_; }
  // Commit time of the oldest transaction not yet safe to confirm; nullopt when none is.
  std::optional<int64_t> OldestPendingCommitTime() const override {
    if (entries_.empty()) return std::nullopt;
    return entries_.front().commit_time_us;
  }

 private:
  struct Entry {
    Lsn end_lsn;
    int64_t commit_time_us = 0;
    uint32_t outstanding = 0;
    bool committed = false;
  };
  Entry& At(TxId tx);
  void Advance();

  std::deque<Entry> entries_;  // Oldest first; entries_[i] has id front_id_ + i.
  TxId front_id_ = 0;
  bool open_ = false;
  Lsn safe_lsn_;
  Lsn last_commit_lsn_;
  uint64_t outstanding_records_ = 0;
  uint64_t acknowledged_records_ = 0;
};

}  // namespace outboxd::relay
