#include "outbox/mapper.h"

#include <algorithm>
#include <utility>

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

std::optional<std::string_view> TextOrNull(const ColumnValue& value) {
  if (value.kind != ColumnKind::kText) return std::nullopt;
  return value.data;
}

}  // namespace

Mapper::Mapper(const config::OutboxConfig& cfg, std::vector<config::TableName> tables)
    : cfg_(cfg), topic_(config::SplitTopicPattern(cfg.topic)), tables_(std::move(tables)) {}

void Mapper::OnRelation(const pgoutput::Relation& relation) {
  const bool is_outbox =
      std::any_of(tables_.begin(), tables_.end(), [&](const config::TableName& t) {
        return t.schema == relation.namespace_name && t.name == relation.relation_name;
      });
  relations_.insert_or_assign(relation.id, internal::BuildLayout(relation, cfg_, is_outbox));
}

bool Mapper::IsOutboxTable(RelationId id) const {
  auto it = relations_.find(id);
  return it != relations_.end() && it->second.is_outbox;
}

std::string Mapper::TableName(RelationId id) const {
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
  const RelationLayout& layout = it->second;
  if (!layout.is_outbox) {
    return absl::InvalidArgumentError(
        fmt::format("{} is not a configured outbox table", layout.table));
  }
  if (!layout.missing.empty()) return absl::InvalidArgumentError(layout.missing);
  if (auto s = ReadColumns(layout, insert); !s.ok()) return s;
  return MapValidated(layout, out);
}

absl::Status Mapper::MapValidated(const RelationLayout& layout, OutboxEvent& out) {
  if (auto s = CheckNeededAreText(layout); !s.ok()) return s;
  const ColumnValue id = Value(layout.id);
  const ColumnValue type = Value(layout.aggregate_type);
  const ColumnValue aggregate_id = Value(layout.aggregate_id);
  if (id.kind == ColumnKind::kNull) return NullColumn(cfg_.id_column);
  if (type.kind == ColumnKind::kNull) return NullColumn(cfg_.aggregate_type_column);
  if (type.data.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("column {} is empty, so the row has no topic", cfg_.aggregate_type_column));
  }
  if (aggregate_id.kind == ColumnKind::kNull) return NullColumn(cfg_.aggregate_id_column);
  // An empty key would pool every such row on one partition with no aggregate to order by.
  if (aggregate_id.data.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("column {} is empty, so the record has no key", cfg_.aggregate_id_column));
  }

  out.topic.clear();
  topic_.Render(type.data, out.topic);
  if (std::string problem = config::TopicNameProblem(out.topic); !problem.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("topic \"{}\" routed by column {} is not a legal Kafka topic name: {}",
                    out.topic, cfg_.aggregate_type_column, problem));
  }
  out.key = aggregate_id.data;
  if (auto s = SetPayload(layout, out); !s.ok()) return s;
  // erase, not clear: InlinedVector::clear frees a spilled buffer that the next row needs.
  out.headers.erase(out.headers.begin(), out.headers.end());
  out.headers.push_back(Header{"id", id.data});
  for (size_t i = 0; i < layout.placements.size(); ++i) {
    out.headers.push_back(
        Header{cfg_.additional_placement[i].header, TextOrNull(Value(layout.placements[i]))});
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
  for (size_t i = 0; i < layout.placements.size(); ++i) {
    if (auto s = CheckText(Value(layout.placements[i]), cfg_.additional_placement[i].column);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status Mapper::SetPayload(const RelationLayout& layout, OutboxEvent& out) {
  const ColumnValue payload = Value(layout.payload);
  if (payload.kind == ColumnKind::kNull) {
    out.value.reset();
    return absl::OkStatus();
  }
  std::string_view bytes = payload.data;
  if (layout.payload_is_bytea) {
    if (auto s = DecodeByteaHex(payload.data, out.owned_value); !s.ok()) return s;
    bytes = out.owned_value;
  }
  // Both sources give an empty value a non-null data(), which producers tell apart from null.
  if (bytes.empty() && cfg_.tombstone_on_empty_payload) {
    out.value.reset();
    return absl::OkStatus();
  }
  if (layout.payload_needs_json_check) {
    if (std::optional<std::string_view> problem = json_.Check(bytes)) {
      return absl::InvalidArgumentError(
          fmt::format("column {} is not valid JSON ({}); validate_json is on, so only JSON "
                      "payloads are published",
                      cfg_.payload_column, *problem));
    }
  }
  out.value = bytes;
  return absl::OkStatus();
}

}  // namespace outboxd::outbox
