#include "outbox/mapper.h"

#include <algorithm>
#include <utility>

#include "common/log.h"
#include "fmt/format.h"
#include "outbox/bytea.h"

namespace outboxd::outbox {
namespace {

using internal::kAbsent;
using internal::RelationLayout;
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

Mapper::Mapper(const config::OutboxConfig& cfg, std::vector<config::TableName> tables,
               std::string run_id)
    : cfg_(cfg),
      router_(config::TopicRouter::Create(cfg.topic_regex, cfg.topic)),
      tables_(std::move(tables)),
      run_id_(std::move(run_id)),
      has_envelope_(std::any_of(cfg.additional_placement.begin(), cfg.additional_placement.end(),
                                [](const config::AdditionalField& f) {
                                  return f.placement == config::Placement::kEnvelope;
                                })),
      message_layout_(BuildMessageLayout(cfg, message_names_)) {}

void Mapper::OnRelation(const pgoutput::Relation& relation) {
  const bool is_outbox =
      std::any_of(tables_.begin(), tables_.end(), [&](const config::TableName& t) {
        return t.schema == relation.namespace_name && t.name == relation.relation_name;
      });
  auto known =
      not_null_.find(fmt::format("{}.{}", relation.namespace_name, relation.relation_name));
  relations_.insert_or_assign(
      relation.id, internal::BuildLayout(relation, cfg_, is_outbox,
                                         known == not_null_.end() ? nullptr : &known->second));
}

void Mapper::SetNotNullColumns(const config::TableName& table, std::vector<std::string> columns) {
  not_null_.insert_or_assign(table.ToString(), std::move(columns));
}

absl::Status Mapper::OnUpdate(RelationId id) const {
  if (!IsOutboxTable(id) || cfg_.op_invalid_behavior != config::InvalidOpBehavior::kFatal) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(fmt::format(
      "an UPDATE of outbox table {} arrived and op_invalid_behavior is \"fatal\"; outbox rows "
      "must only be inserted (and deleted): find what updates them, or set [outbox] "
      "op_invalid_behavior = \"warn\" to skip updates",
      TableName(id)));
}

bool Mapper::IsOutboxTable(RelationId id) const {
  auto it = relations_.find(id);
  return it != relations_.end() && it->second.is_outbox;
}

std::string Mapper::TableName(RelationId id) const {
  if (id == kMessageRelation) return message_layout_.table;
  auto it = relations_.find(id);
  if (it == relations_.end()) return fmt::format("relation {}", id.value);
  return it->second.table;
}

absl::Status Mapper::ReadColumns(const RelationLayout& layout, const pgoutput::Insert& insert) {
  if (insert.new_tuple.column_count != layout.column_count) {
    return absl::DataLossError(
        fmt::format("Insert into {} has {} columns but its Relation message has {}", layout.table,
                    insert.new_tuple.column_count, layout.column_count));
  }
  // The reader is sequential; stopping after the last needed column skips wide tails.
  values_.clear();
  pgoutput::TupleData::Reader reader(insert.new_tuple);
  for (int i = 0; i <= layout.last_needed; ++i) values_.push_back(reader.Next());
  return absl::OkStatus();
}

ColumnValue Mapper::Value(int index) const {
  if (index == kAbsent) return ColumnValue{};
  return values_[static_cast<size_t>(index)];
}

absl::Status Mapper::Map(const pgoutput::Insert& insert, OutboxEvent& out) {
  auto it = relations_.find(insert.relation);
  if (it == relations_.end()) {
    return absl::DataLossError(fmt::format(
        "Insert for relation {} arrived before its Relation message", insert.relation.value));
  }
  RelationLayout& layout = it->second;
  if (!layout.is_outbox) {
    return absl::InvalidArgumentError(
        fmt::format("{} is not a configured outbox table", layout.table));
  }
  if (!layout.missing.empty()) return absl::InvalidArgumentError(layout.missing);
  if (auto s = ReadColumns(layout, insert); !s.ok()) return s;
  return MapValidated(layout, out);
}

absl::Status Mapper::MapValidated(RelationLayout& layout, OutboxEvent& out) {
  if (auto s = CheckNeededAreText(layout); !s.ok()) return s;
  if (auto s = CheckKeys(layout, out); !s.ok()) return s;
  if (auto s = SetTopic(layout, out); !s.ok()) return s;
  EncodeKey(layout, out);
  if (cfg_.format == config::Format::kRaw) {
    if (auto s = EncodeValue(layout, out); !s.ok()) return s;
    SetHeaders(layout, out);
    AppendTraceHeaders(layout, out);
  } else {
    if (auto s = EncodeContract(layout, out); !s.ok()) return s;
  }
  return SetPartitionAndTime(layout, out);
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

absl::Status Mapper::ReadPayload(const RelationLayout& layout, OutboxEvent& out,
                                 std::optional<std::string_view>& payload, bool& tombstone) {
  const ColumnValue column = Value(layout.payload);
  payload.reset();
  tombstone = cfg_.tombstone_on_empty_payload;
  if (column.kind == ColumnKind::kNull) return absl::OkStatus();
  std::string_view bytes = column.data;
  if (layout.payload_is_bytea) {
    if (auto s = DecodeByteaHex(column.data, out.owned_value); !s.ok()) return s;
    bytes = out.owned_value;
    tombstone = tombstone && bytes.empty();
  } else {
    // Debezium: payload.toString().trim().isEmpty(); trim() strips every char <= ' '.
    const bool blank = std::all_of(bytes.begin(), bytes.end(),
                                   [](char c) { return static_cast<unsigned char>(c) <= ' '; });
    tombstone = tombstone && blank;
  }
  if (!tombstone && layout.payload_needs_json_check) {
    if (std::optional<std::string_view> problem = json_.Check(bytes)) {
      return absl::InvalidArgumentError(
          fmt::format("column {} is not valid JSON ({}); validate_json is on, so only JSON "
                      "payloads are published",
                      cfg_.payload_column, *problem));
    }
  }
  // Both sources give an empty value a non-null data(), which producers tell apart from null.
  payload = bytes;
  return absl::OkStatus();
}

}  // namespace outboxd::outbox
