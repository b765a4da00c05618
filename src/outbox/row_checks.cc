// Mapper's per-row reading, before and after the encoder: the column kinds, the key policies
// (empty_keys, null_keys), topic routing, the payload (bytea, tombstones, validate_json), the
// trace context, and the partition and timestamp placements.

#include <algorithm>
#include <charconv>

#include "common/log.h"
#include "config/topic.h"
#include "fmt/format.h"
#include "outbox/bytea.h"
#include "outbox/mapper.h"
#include "outbox/timestamp.h"
#include "outbox/trace_context.h"

namespace outboxd::outbox {
namespace {

using config::Placement;
using internal::kAbsent;
using internal::RelationLayout;
using internal::TextOrNull;
using pgoutput::ColumnKind;
using pgoutput::ColumnValue;

// Only text values can be mapped: 'u' never belongs in an INSERT, and 'b' means the stream was
// started in binary mode, which outboxd does not do.
absl::Status CheckText(const ColumnValue& value, std::string_view column) {
  switch (value.kind) {
    case ColumnKind::kNull:
    case ColumnKind::kText:
      return absl::OkStatus();
    case ColumnKind::kUnchangedToast:
      return absl::InvalidArgumentError(fmt::format(
          "column {} is an unchanged TOAST value ('u'), which an INSERT should not carry", column));
    case ColumnKind::kBinary:
      return absl::InvalidArgumentError(fmt::format(
          "column {} arrived in binary format ('b'); outboxd expects text values", column));
  }
  return absl::InternalError("unreachable ColumnKind");
}

absl::Status NullColumn(std::string_view column) {
  return absl::InvalidArgumentError(fmt::format("column {} is NULL", column));
}

}  // namespace

absl::Status Mapper::CheckNeededAreText(const RelationLayout& layout) const {
  for (auto [index, column] : {std::pair{layout.id, &cfg_.id_column},
                               std::pair{layout.aggregate_type, &cfg_.aggregate_type_column},
                               std::pair{layout.aggregate_id, &cfg_.aggregate_id_column},
                               std::pair{layout.payload, &cfg_.payload_column}}) {
    if (auto s = CheckText(Value(index), *column); !s.ok()) return s;
  }
  for (auto [index, column] : {std::pair{layout.type, &cfg_.type_column},
                               std::pair{layout.occurred_at, &cfg_.occurred_at_column},
                               std::pair{layout.correlation_id, &cfg_.correlation_id_column},
                               std::pair{layout.causation_id, &cfg_.causation_id_column},
                               std::pair{layout.traceparent, &cfg_.traceparent_column},
                               std::pair{layout.tracestate, &cfg_.tracestate_column},
                               std::pair{layout.content_type, &cfg_.content_type_column}}) {
    if (auto s = CheckText(Value(index), column->name); !s.ok()) return s;
  }
  for (size_t i = 0; i < layout.placements.size(); ++i) {
    if (auto s = CheckText(Value(layout.placements[i]), cfg_.additional_placement[i].column);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status Mapper::CheckKeys(RelationLayout& layout, OutboxEvent& out) {
  const ColumnValue id = Value(layout.id);
  const ColumnValue type = Value(layout.aggregate_type);
  const ColumnValue aggregate_id = Value(layout.aggregate_id);
  const bool publish_nulls = cfg_.null_keys == config::KeyPolicy::kPublish;
  // Debezium's task fails on a NULL routing value; no setting publishes it.
  if (type.kind == ColumnKind::kNull) return NullColumn(cfg_.aggregate_type_column);
  if (!publish_nulls) {
    if (id.kind == ColumnKind::kNull) return NullColumn(cfg_.id_column);
    if (aggregate_id.kind == ColumnKind::kNull) return NullColumn(cfg_.aggregate_id_column);
  }
  const bool empty_type = type.data.empty();
  const bool empty_key = aggregate_id.kind == ColumnKind::kText && aggregate_id.data.empty();
  out.empty_key = empty_type || empty_key;
  if (!out.empty_key) return absl::OkStatus();
  const std::string_view column =
      empty_type ? cfg_.aggregate_type_column : cfg_.aggregate_id_column;
  if (cfg_.empty_keys == config::KeyPolicy::kDeadLetter) {
    // An empty key would pool every such row on one partition with no aggregate to order by.
    return absl::InvalidArgumentError(fmt::format(
        "column {} is empty, so the record has no {}; empty_keys = \"publish\" publishes it as "
        "Debezium does",
        column, empty_type ? "topic" : "key"));
  }
  if (!layout.empty_key_warned) {
    layout.empty_key_warned = true;
    log::Warn(
        "{} has a row with an empty {}; publishing it as Debezium does (empty_keys = "
        "\"publish\"), further ones are only counted in outboxd_empty_key_events_total",
        layout.table, column);
  }
  return absl::OkStatus();
}

absl::Status Mapper::SetTopic(const RelationLayout& layout, OutboxEvent& out) {
  if (!router_.ok()) return absl::InvalidArgumentError(router_.status().message());
  out.topic.clear();
  router_->Route(Value(layout.aggregate_type).data, out.topic);
  if (std::string problem = config::TopicNameProblem(out.topic); !problem.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("topic \"{}\" routed by column {} is not a legal Kafka topic name: {}",
                    out.topic, cfg_.aggregate_type_column, problem));
  }
  return absl::OkStatus();
}

absl::Status Mapper::ReadPayload(MappedRow& row, OutboxEvent& out) {
  const RelationLayout& layout = row.layout;
  const ColumnValue column = Value(layout.payload);
  row.payload.reset();
  row.tombstone = cfg_.tombstone_on_empty_payload;
  if (column.kind == ColumnKind::kNull) return absl::OkStatus();
  std::string_view bytes = column.data;
  if (layout.payload_is_bytea) {
    if (auto s = DecodeByteaHex(column.data, out.owned_value); !s.ok()) return s;
    bytes = out.owned_value;
    row.tombstone = row.tombstone && bytes.empty();
  } else {
    // Debezium: payload.toString().trim().isEmpty(); trim() strips every char <= ' '.
    const bool blank = std::all_of(bytes.begin(), bytes.end(),
                                   [](char c) { return static_cast<unsigned char>(c) <= ' '; });
    row.tombstone = row.tombstone && blank;
  }
  if (!row.tombstone && layout.payload_needs_json_check) {
    if (std::optional<std::string_view> problem = json_.Check(bytes)) {
      return absl::InvalidArgumentError(
          fmt::format("column {} is not valid JSON ({}); validate_json is on, so only JSON "
                      "payloads are published",
                      cfg_.payload_column, *problem));
    }
  }
  // Both sources give an empty value a non-null data(), which producers tell apart from null.
  row.payload = bytes;
  return absl::OkStatus();
}

std::optional<std::string_view> Mapper::ReadTraceparent(RelationLayout& layout) {
  const std::optional<std::string_view> parent = TextOrNull(Value(layout.traceparent));
  if (!parent) return std::nullopt;
  if (IsValidTraceparent(*parent)) return parent;
  ++invalid_traceparents_;
  if (!layout.traceparent_warned) {
    layout.traceparent_warned = true;
    log::Warn(
        "{} has a row whose {} column holds \"{}\", which is no W3C traceparent "
        "(00-<32 hex>-<16 hex>-<2 hex>); such values are not propagated (this is logged once "
        "per table)",
        layout.table, cfg_.traceparent_column.name, parent->substr(0, 80));
  }
  return std::nullopt;
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
