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

// exactly_once, a Postgres transaction too large for one Kafka transaction: the transaction
// whose commit record starts at `commit_lsn` (Begin's final_lsn) has its first `events`
// outbox events in Kafka, committed in earlier Kafka transactions than its end. The record's
// `lsn` is then `commit_lsn`: Kafka has every transaction whose commit starts before it.
struct PartialTransaction {
  Lsn commit_lsn;  // Invalid: no transaction is partly published.
  uint64_t events = 0;
  bool operator==(const PartialTransaction&) const = default;
};

struct PositionRecord {
  std::string slot;
  std::string system_id;  // IDENTIFY_SYSTEM's systemid: kept by a physical standby's promotion.
  int timeline = 0;       // IDENTIFY_SYSTEM's timeline: a promotion raises it.
  Lsn lsn;                // The newest flush position outboxd confirmed (a Commit.end_lsn or
                          // an idle keepalive's WAL end): Kafka holds everything before it.
  int64_t written_unix_ms = 0;   // When outboxd wrote the record.
  PartialTransaction partial{};  // Of the transaction after `lsn`, when it was split.
  bool operator==(const PositionRecord&) const = default;
};

// One line of JSON, readable with any Kafka consumer:
// {"v":1,"slot":"...","system_id":"...","timeline":1,"lsn":"0/16B3748","written_unix_ms":...}
// plus ,"partial":{"commit_lsn":"0/16B9000","events":50000} when one is set (an outboxd that
// does not know it ignores it, and republishes that transaction's first events).
std::string EncodeRecord(const PositionRecord& record);

// Parses EncodeRecord's output. DataLoss naming the problem for anything else (including an
// unknown "v": a newer outboxd wrote it).
absl::StatusOr<PositionRecord> DecodeRecord(std::string_view text);

}  // namespace outboxd::position
