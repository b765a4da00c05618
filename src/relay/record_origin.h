#pragma once
// Where a produced record came from: which stream (slot) and transaction it belongs to, and
// what a late rejection needs to dead-letter it. The publisher keeps it until the record's
// delivery report and hands the result back to that stream's AckTracker.

#include <chrono>
#include <cstdint>
#include <string_view>

#include "common/types.h"
#include "relay/ack_tracker.h"

namespace outboxd::relay {

// A stream attached to the publisher; never reused within a process, so a report for a
// record of a stream that has since been restarted cannot reach its successor.
using StreamId = uint32_t;

struct RecordOrigin {
  StreamId stream = 0;
  AckTracker::TxId tx = 0;
  Lsn lsn;
  Xid xid;
  RelationId relation;
  // "public.outbox" (or "relation <oid>"): the outboxd.table header of a late dead letter.
  // Points into the stream's table names, valid while the stream is attached.
  std::string_view table;
  int64_t commit_time_us = 0;  // When the transaction committed (µs since 2000-01-01).
  std::chrono::steady_clock::time_point received;  // When its CopyData was read.
};

}  // namespace outboxd::relay
