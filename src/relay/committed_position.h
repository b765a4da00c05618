#pragma once
// delivery = "exactly_once": a slot may confirm only what a committed Kafka transaction
// covers (DESIGN.md section 8's narrow confirm interface), however acknowledged the records of
// the open one are: an aborted transaction's records are invisible to read_committed consumers.

#include <algorithm>
#include <optional>

#include "relay/ack_tracker.h"
#include "relay/confirm_source.h"
#include "relay/publisher.h"

namespace outboxd::relay {

class CommittedPosition final : public ConfirmSource {
 public:
  // Both must outlive this object.
  CommittedPosition(const AckTracker& tracker, const Publisher& publisher)
      : tracker_(tracker), publisher_(publisher) {}

  // A Kafka transaction holding everything up to the Commit that ends at `lsn` committed.
  void Committed(Lsn lsn) { committed_ = std::max(committed_, lsn); }

  // With no transaction open, every record produced was committed, so what the tracker saw
  // acknowledged (including transactions without outbox rows) is covered too.
  Lsn safe_lsn() const override {
    return publisher_.transaction_open() ? committed_ : std::max(committed_, tracker_.safe_lsn());
  }
  bool Idle() const override { return tracker_.Idle() && !publisher_.transaction_open(); }
  std::optional<int64_t> OldestPendingCommitTime() const override {
    return tracker_.OldestPendingCommitTime();
  }

 private:
  const AckTracker& tracker_;
  const Publisher& publisher_;
  Lsn committed_;
};

}  // namespace outboxd::relay
