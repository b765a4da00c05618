// Mapper's record encoding: key and value through the configured Kafka Connect converter,
// the Event Router's envelope, headers, partition and timestamp (DESIGN.md section 5).

#include <charconv>
#include <chrono>
#include <random>

#include "fmt/format.h"
#include "outbox/converter.h"
#include "outbox/mapper.h"
#include "outbox/timestamp.h"

namespace outboxd::outbox {
namespace {

using config::Converter;
using config::Placement;
using internal::kAbsent;
using internal::RelationLayout;
using pgoutput::ColumnKind;
using pgoutput::ColumnValue;

std::optional<std::string_view> TextOrNull(const ColumnValue& value) {
  if (value.kind != ColumnKind::kText) return std::nullopt;
  return value.data;
}

// Debezium's extended headers, in DebeziumHeaderProducer's order.
constexpr std::string_view kLogicalNameHeader = "__debezium.context.connectorLogicalName";
constexpr std::string_view kTaskIdHeader = "__debezium.context.taskId";
constexpr std::string_view kConnectorNameHeader = "__debezium.context.connectorName";
constexpr std::string_view kRunIdHeader = "__debezium.context.runId";

}  // namespace

std::string ProcessRunId() {
  static const std::string run_id = [] {
    // RFC 9562 version 7: 48 bits of Unix milliseconds, then random bits.
    const auto ms = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                              std::chrono::system_clock::now().time_since_epoch())
                                              .count());
    std::random_device device;
    std::mt19937_64 random((static_cast<uint64_t>(device()) << 32) ^ device());
    const uint64_t high = (ms << 16) | 0x7000 | (random() & 0x0FFF);
    const uint64_t low = (random() & 0x3FFFFFFFFFFFFFFFull) | 0x8000000000000000ull;
    return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", high >> 32, (high >> 16) & 0xFFFF,
                       high & 0xFFFF, low >> 48, low & 0xFFFFFFFFFFFFull);
  }();
  return run_id;
}

void Mapper::EncodeKey(const RelationLayout& layout, OutboxEvent& out) {
  const std::optional<std::string_view> key = TextOrNull(Value(layout.aggregate_id));
  if (cfg_.key_converter == Converter::kString) {
    out.key = key;  // StringConverter: the text, or a null key.
    return;
  }
  std::string& buffer = out.owned_key;
  buffer.clear();
  const bool with_schema = cfg_.key_converter == Converter::kJsonWithSchema;
  if (with_schema) {
    buffer.append(R"({"schema":)");
    AppendSchema(*layout.key_schema, buffer);
    buffer.append(R"(,"payload":)");
  }
  AppendJsonValue(*layout.key_schema, key, out.scratch, buffer);  // Keys are never bytea text.
  if (with_schema) buffer.push_back('}');
  out.key = buffer;
}

absl::Status Mapper::EncodeValue(RelationLayout& layout, OutboxEvent& out) {
  std::optional<std::string_view> payload;
  bool tombstone = false;
  if (auto s = ReadPayload(layout, out, payload, tombstone); !s.ok()) return s;
  if (tombstone) {  // The Event Router drops the schema too: a real null for every converter.
    out.value.reset();
    return absl::OkStatus();
  }
  if (cfg_.value_converter != Converter::kString) return EncodeJsonValue(layout, payload, out);
  if (has_envelope_) {
    EncodeStringEnvelope(layout, payload, out);
  } else {
    out.value = payload;  // Raw text, raw bytea bytes (an intentional difference), or null.
  }
  return absl::OkStatus();
}

// StringConverter on the envelope Struct writes Struct.toString(): "Struct{payload=...,f=...}"
// with null fields left out.
void Mapper::EncodeStringEnvelope(const RelationLayout& layout,
                                  std::optional<std::string_view> payload, OutboxEvent& out) {
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
  field("payload", payload);
  for (size_t i = 0; i < layout.placements.size(); ++i) {
    if (cfg_.additional_placement[i].placement != Placement::kEnvelope) continue;
    const ColumnValue v = Value(layout.placements[i]);
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

absl::Status Mapper::EncodeJsonValue(RelationLayout& layout,
                                     std::optional<std::string_view> payload, OutboxEvent& out) {
  // owned_value may hold the decoded bytea payload; build into the other buffer, then swap.
  std::string& buffer = out.owned_headers;
  buffer.clear();
  ColumnSchema payload_schema = *layout.payload_schema;
  payload_schema.bytea = false;  // `payload` is already decoded; base64 it directly.
  auto payload_json = [&]() {
    if (payload && layout.payload_is_bytea) {
      buffer.push_back('"');
      AppendBase64(*payload, buffer);
      buffer.push_back('"');
    } else {
      AppendJsonValue(payload_schema, payload, out.scratch, buffer);
    }
  };
  const bool with_schema = cfg_.value_converter == Converter::kJsonWithSchema;
  if (with_schema) {
    buffer.append(R"({"schema":)");
    if (has_envelope_) {
      AppendEnvelopeSchema(layout, buffer);
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
      if (!AppendJsonValue(*layout.placement_schemas[i], TextOrNull(Value(layout.placements[i])),
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

// The Event Router's envelope struct: named after the table's value schema with the first
// routing value it saw spliced in ("<prefix>.<schema>.<table>.<type>.Value"; Debezium caches
// the schema built for its first row), fields payload then the envelope placements.
void Mapper::AppendEnvelopeSchema(RelationLayout& layout, std::string& out) {
  if (layout.value_schema_name.empty()) {
    const size_t dot = layout.table.find('.');
    layout.value_schema_name =
        fmt::format("{}.{}.{}.{}.Value", cfg_.logical_name, layout.table.substr(0, dot),
                    layout.table.substr(dot + 1), Value(layout.aggregate_type).data);
  }
  out.append(R"({"type":"struct","fields":[)");
  AppendSchema(*layout.payload_schema, out, "payload");
  for (size_t i = 0; i < layout.placements.size(); ++i) {
    if (cfg_.additional_placement[i].placement != Placement::kEnvelope) continue;
    out.push_back(',');
    AppendSchema(*layout.placement_schemas[i], out, cfg_.additional_placement[i].alias);
  }
  out.append(R"(],"optional":false,"name":)");
  AppendJsonString(layout.value_schema_name, out);
  out.push_back('}');
}

void Mapper::SetHeaders(const RelationLayout& layout, OutboxEvent& out) {
  // erase, not clear: InlinedVector::clear frees a spilled buffer that the next row needs.
  out.headers.erase(out.headers.begin(), out.headers.end());
  if (cfg_.extended_headers) {
    out.headers.push_back(Header{kLogicalNameHeader, cfg_.logical_name});
    out.headers.push_back(Header{kTaskIdHeader, "0"});
    out.headers.push_back(Header{kConnectorNameHeader, cfg_.connector_name});
    out.headers.push_back(Header{kRunIdHeader, run_id_});
  }
  out.headers.push_back(Header{"id", TextOrNull(Value(layout.id))});
  for (size_t i = 0; i < layout.placements.size(); ++i) {
    if (cfg_.additional_placement[i].placement != Placement::kHeader) continue;
    out.headers.push_back(
        Header{cfg_.additional_placement[i].alias, TextOrNull(Value(layout.placements[i]))});
  }
}

absl::Status Mapper::SetPartitionAndTime(const RelationLayout& layout, OutboxEvent& out) {
  out.partition = -1;
  for (size_t i = 0; i < layout.placements.size(); ++i) {
    if (cfg_.additional_placement[i].placement != Placement::kPartition) continue;
    const std::optional<std::string_view> text = TextOrNull(Value(layout.placements[i]));
    if (!text) continue;  // NULL: the partitioner decides, as in Debezium.
    int32_t partition = -1;
    auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), partition);
    if (error != std::errc() || end != text->data() + text->size() || partition < 0) {
      return absl::InvalidArgumentError(fmt::format(
          "column {} holds \"{}\", which is no partition number (a partition placement needs a "
          "non-negative integer)",
          cfg_.additional_placement[i].column, *text));
    }
    out.partition = partition;
  }
  out.timestamp_ms = 0;
  if (layout.timestamp == kAbsent) return absl::OkStatus();
  const std::optional<std::string_view> text = TextOrNull(Value(layout.timestamp));
  if (!text) return absl::OkStatus();  // NULL: the time of producing, as Debezium's ts_ms.
  const std::optional<int64_t> ms = ParseTimestampMs(*text, layout.timestamp_has_zone);
  if (!ms) {
    return absl::InvalidArgumentError(fmt::format(
        "column {} holds \"{}\", which is no ISO timestamp outboxd can read (infinity, a BC "
        "date or a non-ISO DateStyle)",
        cfg_.timestamp_column, *text));
  }
  out.timestamp_ms = *ms;
  return absl::OkStatus();
}

}  // namespace outboxd::outbox
