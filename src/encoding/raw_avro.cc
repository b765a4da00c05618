// The raw format under the avro converters: Confluent's AvroConverter over the Connect schemas
// the Event Router gives it (the payload column's, or the envelope struct's), in the Confluent
// wire format with the registry's id.

#include <vector>

#include "common/status.h"
#include "encoding/avro/avro_datum.h"
#include "encoding/avro/avro_expand.h"
#include "encoding/avro/avro_schema.h"
#include "encoding/debezium/json_expand.h"
#include "encoding/encoder_parts.h"
#include "fmt/format.h"

namespace outboxd::encoding::internal {

using outbox::ColumnSchema;
using outbox::MappedRow;
using outbox::OutboxEvent;
using outbox::internal::EncoderCache;
using outbox::internal::RelationLayout;

namespace {

using config::Placement;

// Parses `json` into the layout's cache once; a schema avro-c refuses (Java's Avro would too)
// dead-letters the rows.
absl::Status EnsureDatum(std::shared_ptr<EncoderCache>& cache, const std::string& json) {
  if (cache) return absl::OkStatus();
  auto created = AvroDatum::Create(json);
  if (!created.ok()) return created.status();
  cache = std::move(*created);
  return absl::OkStatus();
}

// The datum EnsureDatum put in a layout's cache: only this file fills these caches.
AvroDatum& DatumIn(const std::shared_ptr<EncoderCache>& cache) {
  return static_cast<AvroDatum&>(*cache);
}

// Writes the filled `datum` with its registry id into out.owned_value (via owned_headers: the
// payload may be a view of owned_value).
absl::Status WriteValue(SchemaIds& ids, std::string_view name, AvroDatum& datum, OutboxEvent& out) {
  absl::StatusOr<int32_t> id = ids.IdFor(out.topic, /*is_key=*/false, name, datum.schema_json());
  if (!id.ok()) return id.status();
  std::string& buffer = out.owned_headers;
  buffer.clear();
  if (auto s = datum.AppendFramed(*id, buffer); !s.ok()) return s;
  out.owned_value.swap(buffer);
  out.value = out.owned_value;
  return absl::OkStatus();
}

// table.expand.json.payload: the inferred struct (or the Anything record of "[]") in the schema
// AvroData derives for it, registered once per distinct schema text (SchemaIds caches the id).
// The value is written before the id is asked for: a row that does not fit registers nothing.
absl::Status WriteExpanded(SchemaIds& ids, const InferredPayload& inferred, std::string_view text,
                           OutboxEvent& out) {
  if (inferred.outcome == ExpandOutcome::kFails) {
    return absl::InvalidArgumentError(std::string(inferred.reason));
  }
  std::string& buffer = out.owned_headers;
  buffer.assign(kConfluentHeaderSize, '\0');
  std::string_view schema;
  std::string_view name;
  if (inferred.outcome == ExpandOutcome::kNullSchema) {
    schema = AnythingAvroSchema();
    name = kAnythingAvroName;
    AppendAnythingString(text, buffer);
  } else {
    if (auto s = AppendExpandedAvroValue(inferred, buffer); !s.ok()) return s;
    out.scratch.clear();
    if (auto s = AppendExpandedAvroSchema(inferred, out.scratch); !s.ok()) return s;
    schema = out.scratch;
    name = "union";  // AvroSchema.name() of the optional struct's union.
  }
  absl::StatusOr<int32_t> id = ids.IdFor(out.topic, /*is_key=*/false, name, schema);
  if (!id.ok()) return id.status();
  std::string header;
  header.reserve(kConfluentHeaderSize);
  AppendConfluentHeader(*id, header);
  buffer.replace(0, kConfluentHeaderSize, header);
  out.owned_value.swap(buffer);
  out.value = out.owned_value;
  return absl::OkStatus();
}

}  // namespace

absl::Status EncodeAvroKey(SchemaIds& ids, const MappedRow& row, OutboxEvent& out) {
  const std::optional<std::string_view> key = row.Text(row.layout.aggregate_id);
  if (!key) {  // The serializer writes a null object as a null key.
    out.key.reset();
    return absl::OkStatus();
  }
  RelationLayout& layout = row.layout;
  if (!layout.key_cache) {
    std::string json;
    AppendAvroSchema(*layout.key_schema, json);
    if (auto s = EnsureDatum(layout.key_cache, json); !s.ok()) return s;
  }
  AvroDatum& datum = DatumIn(layout.key_cache);
  absl::StatusOr<int32_t> id = ids.IdFor(out.topic, /*is_key=*/true,
                                         AvroSchemaName(*layout.key_schema), datum.schema_json());
  if (!id.ok()) return id.status();
  if (auto s = datum.Set(*layout.key_schema, key); !s.ok()) return s;
  out.owned_key.clear();
  if (auto s = datum.AppendFramed(*id, out.owned_key); !s.ok()) return s;
  out.key = out.owned_key;
  return absl::OkStatus();
}

absl::Status EncodeAvroValue(const config::OutboxConfig& cfg, SchemaIds& ids, bool envelope,
                             const MappedRow& row, OutboxEvent& out) {
  RelationLayout& layout = row.layout;
  ColumnSchema payload_schema = *layout.payload_schema;
  payload_schema.bytea = false;  // `payload` is already decoded.
  if (!envelope) {
    if (!row.payload) {  // A null object: the serializer writes a null value.
      out.value.reset();
      return absl::OkStatus();
    }
    // Only a Java String payload is tried (bytea is not), as in the JSON converters' path.
    if (cfg.expand_json_payload && !layout.payload_is_bytea && payload_schema.type == "string") {
      const InferredPayload inferred = InferJsonPayload(*row.payload, cfg.payload_column);
      if (inferred.outcome != ExpandOutcome::kUnexpanded) {
        return WriteExpanded(ids, inferred, *row.payload, out);
      }
    }
    if (!layout.value_cache) {
      std::string json;
      AppendAvroSchema(payload_schema, json);
      if (auto s = EnsureDatum(layout.value_cache, json); !s.ok()) return s;
    }
    AvroDatum& datum = DatumIn(layout.value_cache);
    if (auto s = datum.Set(payload_schema, row.payload); !s.ok()) return s;
    return WriteValue(ids, AvroSchemaName(payload_schema), datum, out);
  }
  const std::string& name = EnvelopeSchemaName(cfg, row);
  if (!layout.value_cache) {
    std::vector<AvroField> fields{{"payload", &payload_schema}};
    for (size_t i = 0; i < layout.placements.size(); ++i) {
      if (cfg.additional_placement[i].placement != Placement::kEnvelope) continue;
      fields.push_back({cfg.additional_placement[i].alias, &*layout.placement_schemas[i]});
    }
    std::string json;
    AppendAvroRecordSchema(name, fields, json);
    if (auto s = EnsureDatum(layout.value_cache, json); !s.ok()) return s;
  }
  AvroDatum& datum = DatumIn(layout.value_cache);
  if (auto s = datum.SetField(0, payload_schema, row.payload); !s.ok()) return s;
  size_t field = 1;
  for (size_t i = 0; i < layout.placements.size(); ++i) {
    if (cfg.additional_placement[i].placement != Placement::kEnvelope) continue;
    if (auto s =
            datum.SetField(field++, *layout.placement_schemas[i], row.Text(layout.placements[i]));
        !s.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("column {}: {}", cfg.additional_placement[i].column, MessageOf(s)));
    }
  }
  return WriteValue(ids, name, datum, out);
}

}  // namespace outboxd::encoding::internal
