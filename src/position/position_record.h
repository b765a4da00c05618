#pragma once
// The position record: what outboxd last confirmed to one slot, on which server and timeline.
// One record per slot, keyed by the slot name in a compacted Kafka topic (position_store.h), so
// the last one survives outboxd's restarts and the database's failovers. The failover checks
// (resume_check.h) read it today; exactly-once delivery will too.

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/types.h"

namespace outboxd::position {

struct PositionRecord {
  std::string slot;
  std::string system_id;  // IDENTIFY_SYSTEM's systemid: kept by a physical standby's promotion.
  int timeline = 0;       // IDENTIFY_SYSTEM's timeline: a promotion raises it.
  Lsn lsn;                // The newest flush position outboxd confirmed (a Commit.end_lsn or
                          // an idle keepalive's WAL end): Kafka holds everything before it.
  int64_t written_unix_ms = 0;  // When outboxd wrote the record.
  bool operator==(const PositionRecord&) const = default;
};

// One line of JSON, readable with any Kafka consumer:
// {"v":1,"slot":"...","system_id":"...","timeline":1,"lsn":"0/16B3748","written_unix_ms":...}
std::string EncodeRecord(const PositionRecord& record);

// Parses EncodeRecord's output. DataLoss naming the problem for anything else (including an
// unknown "v": a newer outboxd wrote it).
absl::StatusOr<PositionRecord> DecodeRecord(std::string_view text);

}  // namespace outboxd::position
