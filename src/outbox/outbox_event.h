#pragma once
// What a Mapper fills for each row: one Kafka record (OutboxEvent), and where in the WAL the
// row was read (EventSource), which the caller passes in.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/container/inlined_vector.h"
#include "common/record.h"
#include "common/types.h"

namespace outboxd::outbox {

// Where the event being mapped was read in the WAL: the source position of the contract's
// formats (proto/outboxd/v1/event.proto, SourcePosition) and of dead-letter headers.
struct EventSource {
  Lsn commit_lsn;  // The transaction's commit record (Begin's final_lsn).
  Lsn lsn;         // The row's (or message's) own WAL record.
  Xid xid;
  int64_t commit_time_us = 0;  // µs since 2000-01-01 UTC, as pgoutput sends it; 0 = none.
  std::string_view slot{};     // The replication slot the row came through.
  uint64_t ordinal = 0;        // The event's place among its transaction's outbox events.
};

// One Kafka record to produce. Views point into the decoded WAL message (valid until the next
// one), into the OutboxConfig, or into the owned_* strings below; so an event is neither
// copyable nor movable, and is reused from row to row instead.
struct OutboxEvent {
  OutboxEvent() = default;
  OutboxEvent(const OutboxEvent&) = delete;
  OutboxEvent& operator=(const OutboxEvent&) = delete;

  // Empties `headers`. erase, not clear: InlinedVector::clear frees a spilled buffer that the
  // next row needs.
  void ClearHeaders() { headers.erase(headers.begin(), headers.end()); }

  std::string topic;
  std::optional<std::string_view> key;
  std::optional<std::string_view> value;  // nullopt = tombstone (null value).
  // The extended headers (extended_headers), "id", then the header placements in order.
  absl::InlinedVector<Header, 8> headers;
  int32_t partition = -1;     // A partition placement's value; -1 = the partitioner's choice.
  int64_t timestamp_ms = 0;   // timestamp_column's value; 0 = the time of producing.
  bool empty_key = false;     // Published under empty_keys = "publish" with an empty key/type.
  std::string owned_key;      // Backing store for converted keys.
  std::string owned_value;    // Backing store for bytea-decoded or converted payloads.
  std::string owned_headers;  // Backing store for dead-letter and CloudEvents header values.
  std::string scratch;        // Decoded bytea on its way to base64; a value being built.
  // position_headers' values: the commit LSN ("X/X", at most 17 characters), then the ordinal.
  std::array<char, 48> position_text{};
};

}  // namespace outboxd::outbox
