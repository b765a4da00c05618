#include "relay/ack_tracker.h"

#include <cassert>

namespace outboxd::relay {

AckTracker::TxId AckTracker::Begin(int64_t commit_time_us) {
  assert(!open_);
  open_ = true;
  entries_.push_back(Entry{.end_lsn = Lsn(), .commit_time_us = commit_time_us});
  return front_id_ + entries_.size() - 1;
}

void AckTracker::AddRecord() {
  assert(open_);
  ++entries_.back().outstanding;
  ++outstanding_records_;
}

void AckTracker::Commit(Lsn end_lsn) {
  assert(open_);
  open_ = false;
  Entry& tx = entries_.back();
  tx.end_lsn = end_lsn;
  tx.committed = true;
  last_commit_lsn_ = end_lsn;
  // A transaction without records behind a pending one is safe exactly when its predecessor
  // is: fold it into that entry so a busy database with an idle outbox cannot grow the queue.
  if (tx.outstanding == 0 && entries_.size() > 1 && entries_[entries_.size() - 2].committed) {
    entries_[entries_.size() - 2].end_lsn = end_lsn;
    entries_.pop_back();
  }
  Advance();
}

void AckTracker::Acknowledge(TxId tx) {
  Entry& entry = At(tx);
  assert(entry.outstanding > 0);
  --entry.outstanding;
  --outstanding_records_;
  ++acknowledged_records_;
  Advance();
}

AckTracker::Entry& AckTracker::At(TxId tx) {
  assert(tx >= front_id_ && tx - front_id_ < entries_.size());
  return entries_[tx - front_id_];
}

void AckTracker::Advance() {
  while (!entries_.empty() && entries_.front().committed && entries_.front().outstanding == 0) {
    safe_lsn_ = entries_.front().end_lsn;
    entries_.pop_front();
    ++front_id_;
  }
}

}  // namespace outboxd::relay
