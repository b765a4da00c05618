#pragma once
// The seam between a row and its bytes (docs/event-formats.md): what a Mapper hands the output
// format for each row it has read and checked, and the Encoder that writes the record's key,
// value and headers. The encoders themselves live in src/encoding/ (encoding/encoder_factory.h
// chooses one at start-up); one is shared read-only by the Mappers of every replication stream
// (DESIGN.md section 8), and what changes from row to row lives in the Mapper or the OutboxEvent.

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "config/config.h"
#include "outbox/contract_event.h"
#include "outbox/outbox_event.h"
#include "outbox/relation_layout.h"
#include "pgoutput/messages.h"

namespace outboxd::outbox {

// One row (or table-less message) as a Mapper read and checked it, for one Encode call. The
// references are the calling Mapper's per-stream state; the views point into the WAL message.
struct MappedRow {
  // The row's relation. Encode may cache in it what Debezium decides from a table's first row
  // (the raw envelope's schema name).
  internal::RelationLayout& layout;
  std::span<const pgoutput::ColumnValue> values;  // Columns 0..layout.last_needed, all text/NULL.
  const EventSource& source;
  std::string_view message_prefix;          // A logical message's prefix; empty for a table's row.
  std::optional<std::string_view> payload;  // Text, bytea decoded into out.owned_value, or NULL.
  bool tombstone = false;                   // route.tombstone.on.empty.payload: the value is null.
  std::optional<std::string_view> traceparent;  // A valid W3C traceparent; else not propagated.
  ContractEvent& contract;                      // Scratch of the contract formats, reused.

  // The value of column `index`; NULL when `index` is kAbsent (a column the table lacks).
  pgoutput::ColumnValue Value(int index) const { return internal::ValueAt(values, index); }
  // Its text, or nullopt for NULL.
  std::optional<std::string_view> Text(int index) const {
    return internal::TextOrNull(Value(index));
  }
};

// Immutable after construction and holding no per-row state: Encode writes only through
// `row`'s per-stream references and to `out`, so the Mappers of several streams share one
// (today all on the replication loop thread).
class Encoder {
 public:
  virtual ~Encoder() = default;
  // Sets out.key, out.value and out.headers for `row` (topic, partition and timestamp are the
  // Mapper's). InvalidArgument, with a reason meant for a dead-letter header, when the row
  // cannot be written in this format; then `out` is unspecified. Allocates nothing once `out`
  // and `row.contract` are warm.
  virtual absl::Status Encode(const MappedRow& row, OutboxEvent& out) const = 0;
};

}  // namespace outboxd::outbox
