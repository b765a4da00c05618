#pragma once
// The narrow question a replication session asks before it confirms (DESIGN.md section 8):
// "what may I confirm, and am I idle?". In at-least-once mode the AckTracker answers it; in
// exactly-once mode the last committed Kafka transaction will.

#include <cstdint>
#include <optional>

#include "common/types.h"

namespace outboxd::relay {

class ConfirmSource {
 public:
  virtual ~ConfirmSource() = default;
  // The newest Commit.end_lsn that Kafka has covered, with everything before it; invalid until
  // the first transaction is covered.
  virtual Lsn safe_lsn() const = 0;
  // True when no transaction is open and nothing awaits Kafka: then everything the server has
  // sent (a keepalive's WAL end) is safe too (invariant 5).
  virtual bool Idle() const = 0;
  // Commit time (µs since 2000-01-01) of the oldest transaction not yet safe to confirm;
  // nullopt when none is. Feeds the replication lag metric.
  virtual std::optional<int64_t> OldestPendingCommitTime() const = 0;
};

}  // namespace outboxd::relay
