#pragma once
// exactly_once and records the broker rejects after taking them (DESIGN.md invariant 7): the
// rejection leaves the open Kafka transaction needing an abort, so the dead letter that stands
// for the row cannot join it. The transaction is abandoned, and the replay dead-letters the row
// at once. This remembers which rows, across the producer lives of one relay run.

#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "common/types.h"

namespace outboxd::relay {

// Used on the loop thread only.
class LateRejections {
 public:
  // Kafka rejected the record of the row at `row` (its dead-letter record, when `dead_letter`).
  void Remember(Lsn row, std::string reason, bool dead_letter) {
    Entry& entry = rows_[row.value()];
    if (dead_letter) {
      entry.dead_letter_rejected = true;
    } else {
      entry.reason = std::move(reason);
    }
  }
  // Why Kafka rejected the row's record; nullptr when it did not.
  const std::string* RecordRejected(Lsn row) const {
    auto it = rows_.find(row.value());
    return it == rows_.end() || it->second.reason.empty() ? nullptr : &it->second.reason;
  }
  // Kafka rejected the row's dead-letter record too: send it without its value.
  bool DeadLetterRejected(Lsn row) const {
    auto it = rows_.find(row.value());
    return it != rows_.end() && it->second.dead_letter_rejected;
  }

 private:
  struct Entry {
    std::string reason;
    bool dead_letter_rejected = false;
  };
  absl::flat_hash_map<uint64_t, Entry> rows_;
};

}  // namespace outboxd::relay
