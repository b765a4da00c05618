// format = "raw": the Outbox Event Router's record as Kafka Connect's converters write it
// (DESIGN.md section 5): the payload as stored or through JsonConverter, the optional envelope
// of "envelope" placements, Debezium's extended headers, "id" and the placed headers.

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "encoding/debezium/converter.h"
#include "encoding/debezium/json_expand.h"
#include "encoding/encoder_parts.h"
#include "fmt/format.h"

namespace outboxd::encoding::internal {

using outbox::ColumnSchema;
using outbox::Encoder;
using outbox::MappedRow;
using outbox::OutboxEvent;
using outbox::internal::RelationLayout;
using outbox::internal::TextOrNull;

namespace {

using config::Converter;
using config::Placement;
using pgoutput::ColumnKind;
using pgoutput::ColumnValue;

// Debezium's extended headers, in DebeziumHeaderProducer's order.
constexpr std::string_view kLogicalNameHeader = "__debezium.context.connectorLogicalName";
constexpr std::string_view kTaskIdHeader = "__debezium.context.taskId";
constexpr std::string_view kConnectorNameHeader = "__debezium.context.connectorName";
constexpr std::string_view kRunIdHeader = "__debezium.context.runId";

class RawEncoder final : public Encoder {
 public:
  RawEncoder(const config::OutboxConfig& cfg, std::string run_id, SchemaIds* schema_ids)
      : cfg_(cfg),
        run_id_(std::move(run_id)),
        schema_ids_(schema_ids),
        value_converter_(config::NonBytesValueConverter(cfg)),
        has_envelope_(std::any_of(
            cfg.additional_placement.begin(), cfg.additional_placement.end(),
            [](const config::AdditionalField& f) { return f.placement == Placement::kEnvelope; })) {
  }

  absl::Status Encode(const MappedRow& row, OutboxEvent& out) const override {
    if (cfg_.key_converter == Converter::kAvro) {
      if (auto s = EncodeAvroKey(*schema_ids_, row, out); !s.ok()) return s;
    } else {
      EncodeKey(cfg_, row, out);
    }
    if (auto s = EncodeValue(row, out); !s.ok()) return s;
    SetHeaders(row, out);
    AppendTraceHeaders(row, out);
    return absl::OkStatus();
  }

 private:
  absl::Status EncodeValue(const MappedRow& row, OutboxEvent& out) const;
  void EncodeStringEnvelope(const MappedRow& row, OutboxEvent& out) const;
  absl::Status EncodeJsonValue(const MappedRow& row, OutboxEvent& out) const;
  absl::Status EncodeExpanded(const ExpandedPayload& expanded, const MappedRow& row,
                              OutboxEvent& out) const;
  void AppendEnvelopeSchema(const MappedRow& row, std::string& out) const;
  void SetHeaders(const MappedRow& row, OutboxEvent& out) const;

  const config::OutboxConfig& cfg_;
  const std::string run_id_;
  SchemaIds* const schema_ids_;  // The avro converters' registry; null when neither is avro.
  // The converter of values that are not bytea payloads: value_converter, or the delegate of
  // "bytes" (kBytes: none).
  const Converter value_converter_;
  const bool has_envelope_;  // Some placement is "envelope": the value is a struct.
};

absl::Status RawEncoder::EncodeValue(const MappedRow& row, OutboxEvent& out) const {
  if (row.tombstone) {  // The Event Router drops the schema too: a real null for every converter.
    out.value.reset();
    return absl::OkStatus();
  }
  if (value_converter_ == Converter::kBytes) {
    // ByteArrayConverter / BinaryDataConverter: a bytea payload (or NULL, schema bytes) as it
    // is; anything else goes to the delegate, which Debezium's task fails without.
    if (!has_envelope_ && row.layout.payload_is_bytea) {
      out.value = row.payload;
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError(
        has_envelope_ ? "value_converter = bytes without a delegate cannot write the envelope "
                        "struct (Debezium's task fails on it)"
                      : "value_converter = bytes without a delegate writes only bytea payloads "
                        "(ByteArrayConverter refuses a string; Debezium's task fails on it)");
  }
  if (!has_envelope_ && row.layout.payload_is_bytea && cfg_.value_converter == Converter::kBytes) {
    out.value = row.payload;  // BinaryDataConverter: bytes pass untouched; the rest delegated.
    return absl::OkStatus();
  }
  if (value_converter_ == Converter::kAvro) {
    return EncodeAvroValue(cfg_, *schema_ids_, has_envelope_, row, out);
  }
  if (value_converter_ != Converter::kString) return EncodeJsonValue(row, out);
  if (has_envelope_) {
    EncodeStringEnvelope(row, out);
  } else {
    out.value = row.payload;  // Raw text, raw bytea bytes (an intentional difference), or null.
  }
  return absl::OkStatus();
}

// StringConverter on the envelope Struct writes Struct.toString(): "Struct{payload=...,f=...}"
// with null fields left out.
void RawEncoder::EncodeStringEnvelope(const MappedRow& row, OutboxEvent& out) const {
  const RelationLayout& layout = row.layout;
  std::string& buffer = out.scratch;
  buffer.assign("Struct{");
  bool first = true;
  auto field = [&](std::string_view name, std::optional<std::string_view> text) {
    if (!text) return;
    if (!first) buffer.push_back(',');
    first = false;
    buffer.append(name).push_back('=');
    buffer.append(*text);
  };
  field("payload", row.payload);
  for (size_t i = 0; i < layout.placements.size(); ++i) {
    if (cfg_.additional_placement[i].placement != Placement::kEnvelope) continue;
    const ColumnValue v = row.Value(layout.placements[i]);
    const bool is_bool = layout.placement_schemas[i] && layout.placement_schemas[i]->boolean;
    if (is_bool && v.kind == ColumnKind::kText) {
      field(cfg_.additional_placement[i].alias, v.data == "t" ? "true" : "false");
    } else {
      field(cfg_.additional_placement[i].alias, TextOrNull(v));
    }
  }
  buffer.push_back('}');
  out.owned_value.swap(buffer);
  out.value = out.owned_value;
}

absl::Status RawEncoder::EncodeJsonValue(const MappedRow& row, OutboxEvent& out) const {
  const RelationLayout& layout = row.layout;
  // table.expand.json.payload: only a Java String payload is tried (bytea is not; NULL is kept).
  if (cfg_.expand_json_payload && row.payload && !layout.payload_is_bytea &&
      layout.payload_schema && layout.payload_schema->type == "string") {
    const ExpandedPayload expanded = ExpandJsonPayload(*row.payload, cfg_.payload_column);
    if (expanded.outcome != ExpandOutcome::kUnexpanded) return EncodeExpanded(expanded, row, out);
  }
  // owned_value may hold the decoded bytea payload; build into the other buffer, then swap.
  std::string& buffer = out.owned_headers;
  buffer.clear();
  ColumnSchema payload_schema = *layout.payload_schema;
  payload_schema.bytea = false;  // `payload` is already decoded; base64 it directly.
  auto payload_json = [&]() {
    if (row.payload && layout.payload_is_bytea) {
      buffer.push_back('"');
      AppendBase64(*row.payload, buffer);
      buffer.push_back('"');
    } else {
      AppendJsonValue(payload_schema, row.payload, out.scratch, buffer);
    }
  };
  const bool with_schema = value_converter_ == Converter::kJsonWithSchema;
  if (with_schema) {
    buffer.append(R"({"schema":)");
    if (has_envelope_) {
      AppendEnvelopeSchema(row, buffer);
    } else {
      AppendSchema(*layout.payload_schema, buffer);
    }
    buffer.append(R"(,"payload":)");
  }
  if (has_envelope_) {
    buffer.append(R"({"payload":)");
    payload_json();
    for (size_t i = 0; i < layout.placements.size(); ++i) {
      if (cfg_.additional_placement[i].placement != Placement::kEnvelope) continue;
      buffer.push_back(',');
      AppendJsonString(cfg_.additional_placement[i].alias, buffer);
      buffer.push_back(':');
      if (!AppendJsonValue(*layout.placement_schemas[i], row.Text(layout.placements[i]),
                           out.scratch, buffer)) {
        return absl::InvalidArgumentError(fmt::format("column {} is not bytea \\x hex text",
                                                      cfg_.additional_placement[i].column));
      }
    }
    buffer.push_back('}');
  } else {
    payload_json();
  }
  if (with_schema) buffer.push_back('}');
  out.owned_value.swap(buffer);
  out.value = out.owned_value;
  return absl::OkStatus();
}

// An expanded payload as JsonConverter writes it (config refuses envelopes with expansion).
absl::Status RawEncoder::EncodeExpanded(const ExpandedPayload& expanded, const MappedRow& row,
                                        OutboxEvent& out) const {
  if (expanded.outcome == ExpandOutcome::kFails) {
    return absl::InvalidArgumentError(std::string(expanded.reason));
  }
  std::string& buffer = out.owned_headers;
  buffer.clear();
  const bool with_schema = value_converter_ == Converter::kJsonWithSchema;
  if (with_schema) buffer.append(R"({"schema":)");
  if (expanded.outcome == ExpandOutcome::kExpanded) {
    if (with_schema) buffer.append(expanded.schema_json).append(R"(,"payload":)");
    buffer.append(expanded.value_json);
  } else {  // kNullSchema: the string stays, its schema is null.
    if (with_schema) buffer.append(R"(null,"payload":)");
    AppendJsonString(*row.payload, buffer);
  }
  if (with_schema) buffer.push_back('}');
  out.owned_value.swap(buffer);
  out.value = out.owned_value;
  return absl::OkStatus();
}

// The Event Router's envelope struct: named after the table's value schema with the first
// routing value it saw spliced in ("<prefix>.<schema>.<table>.<type>.Value"; Debezium caches
// the schema built for its first row), fields payload then the envelope placements.
void RawEncoder::AppendEnvelopeSchema(const MappedRow& row, std::string& out) const {
  const RelationLayout& layout = row.layout;
  const std::string& name = EnvelopeSchemaName(cfg_, row);
  out.append(R"({"type":"struct","fields":[)");
  AppendSchema(*layout.payload_schema, out, "payload");
  for (size_t i = 0; i < layout.placements.size(); ++i) {
    if (cfg_.additional_placement[i].placement != Placement::kEnvelope) continue;
    out.push_back(',');
    AppendSchema(*layout.placement_schemas[i], out, cfg_.additional_placement[i].alias);
  }
  out.append(R"(],"optional":false,"name":)");
  AppendJsonString(name, out);
  out.push_back('}');
}

void RawEncoder::SetHeaders(const MappedRow& row, OutboxEvent& out) const {
  out.ClearHeaders();
  if (cfg_.extended_headers) {
    out.headers.push_back(Header{kLogicalNameHeader, cfg_.logical_name});
    out.headers.push_back(Header{kTaskIdHeader, "0"});
    out.headers.push_back(Header{kConnectorNameHeader, cfg_.connector_name});
    out.headers.push_back(Header{kRunIdHeader, run_id_});
  }
  out.headers.push_back(Header{"id", row.Text(row.layout.id)});
  AppendPlacementHeaders(cfg_, row, out);
}

}  // namespace

std::unique_ptr<const Encoder> NewRawEncoder(const config::OutboxConfig& cfg, std::string run_id,
                                             SchemaIds* schema_ids) {
  return std::make_unique<const RawEncoder>(cfg, std::move(run_id), schema_ids);
}

}  // namespace outboxd::encoding::internal
