#pragma once
// Internal to outboxd_outbox: where the configured outbox columns sit in one relation's tuples,
// computed once per Relation message so that mapping a row is a single walk with no lookups.

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "outbox/column_schema.h"
#include "pgoutput/messages.h"

namespace outboxd::outbox::internal {

inline constexpr int kAbsent = -1;

// The base of what an encoder caches per relation in its layout.
class EncoderCache {
 public:
  virtual ~EncoderCache() = default;
};

// pg_type OIDs: text (the fields of table-less events); json and jsonb, whose text Postgres
// has already validated; the timestamp types timestamp_column accepts.
inline constexpr uint32_t kTextOid = 25;
inline constexpr uint32_t kJsonOid = 114;
inline constexpr uint32_t kJsonbOid = 3802;
inline constexpr uint32_t kTimestampOid = 1114;
inline constexpr uint32_t kTimestamptzOid = 1184;

struct RelationLayout {
  std::string table;  // "schema.table", owned: the Relation message's views die with it.
  bool is_outbox = false;
  uint16_t column_count = 0;
  int id = kAbsent;
  int aggregate_type = kAbsent;
  int aggregate_id = kAbsent;
  int payload = kAbsent;
  bool payload_is_bytea = false;
  // validate_json is on and the payload column's type does not guarantee JSON (not json,
  // jsonb or bytea), so each payload is checked.
  bool payload_needs_json_check = false;
  int timestamp = kAbsent;  // timestamp_column, when configured.
  bool timestamp_has_zone = false;
  std::vector<int> placements;  // Parallel to OutboxConfig::additional_placement.
  // The event contract's columns (kAbsent when the table lacks one it need not have). Only the
  // trace columns are located for the raw format.
  int type = kAbsent;
  int occurred_at = kAbsent;
  bool occurred_at_has_zone = false;
  int correlation_id = kAbsent;
  int causation_id = kAbsent;
  int traceparent = kAbsent;
  int tracestate = kAbsent;
  int content_type = kAbsent;
  bool payload_is_json = false;     // json or jsonb: the contract embeds it as JSON.
  bool traceparent_warned = false;  // An invalid traceparent: warn once per table.
  // Connect schemas for the JSON converters (nullopt: a type they cannot convert; such a
  // column fails every row through `missing` when a JSON converter needs it).
  std::optional<ColumnSchema> key_schema;
  std::optional<ColumnSchema> payload_schema;
  std::vector<std::optional<ColumnSchema>> placement_schemas;  // Parallel to placements.
  std::string value_schema_name;  // The envelope struct's name, once the first row named it.
  // What an encoder builds at the table's first row and reuses (the avro converters' schema
  // and value); opaque here, made and read by that encoder alone (shared: a layout is copied
  // when a relation changes; only the stream that owns it uses them).
  std::shared_ptr<EncoderCache> key_cache;
  std::shared_ptr<EncoderCache> value_cache;
  bool empty_key_warned = false;  // empty_keys: warn once per table.
  int last_needed = kAbsent;      // Highest column index that Map must read.
  // Why every row of an outbox table fails, e.g. "column aggregateid not found in
  // public.outbox"; empty when all configured columns exist.
  std::string missing;
};

// `is_outbox` says whether the relation is one of the configured outbox tables; `not_null`
// lists its NOT NULL columns (the "optional" flag of JSON schemas), or is null when unknown:
// then Debezium's documented outbox table is assumed (all but the payload NOT NULL).
RelationLayout BuildLayout(const pgoutput::Relation& relation, const config::OutboxConfig& cfg,
                           bool is_outbox, const std::vector<std::string>* not_null);

// The value of column `index` of a row read up to its layout's last_needed column; NULL when
// `index` is kAbsent (a column the table lacks).
inline pgoutput::ColumnValue ValueAt(std::span<const pgoutput::ColumnValue> values, int index) {
  if (index == kAbsent) return pgoutput::ColumnValue{};
  return values[static_cast<size_t>(index)];
}

// A text value's text; nullopt for NULL (and for unchanged-TOAST or binary values, which only
// a dead-letter record reads unchecked).
inline std::optional<std::string_view> TextOrNull(const pgoutput::ColumnValue& value) {
  if (value.kind != pgoutput::ColumnKind::kText) return std::nullopt;
  return value.data;
}

}  // namespace outboxd::outbox::internal
