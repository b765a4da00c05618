#pragma once
// The output format (docs/event-formats.md): how a row the Mapper has read and checked becomes
// a record's key, value and headers. One Encoder is chosen at start-up from [outbox] format and
// the converters, and shared read-only by the Mappers of every replication stream (DESIGN.md
// section 8); what changes from row to row lives in the Mapper or the OutboxEvent.

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "config/config.h"
#include "outbox/contract_event.h"
#include "outbox/outbox_event.h"
#include "outbox/relation_layout.h"
#include "outbox/schema_ids.h"
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

// A UUID (version 7, as Debezium's runId) drawn once per process; the same on every call.
std::string ProcessRunId();

// The encoder of cfg.format (with cfg's converters for "raw", cfg.cloudevents_mode for
// "cloudevents"). `cfg` must outlive it and every event it fills. `run_id` is the
// __debezium.context.runId header of the raw format's extended_headers. `schema_ids` is the
// registry of the avro converters, required when one is "avro" (config allows them only in the
// raw format), and must outlive the encoder.
std::unique_ptr<const Encoder> CreateEncoder(const config::OutboxConfig& cfg,
                                             std::string run_id = ProcessRunId(),
                                             SchemaIds* schema_ids = nullptr);

}  // namespace outboxd::outbox
