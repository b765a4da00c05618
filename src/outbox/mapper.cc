#include "outbox/mapper.h"

#include <algorithm>
#include <utility>

#include "fmt/format.h"

namespace outboxd::outbox {

using internal::RelationLayout;

namespace {

// position_headers, formatted into the event's fixed buffer: no allocation per row.
void AppendPositionHeaders(const EventSource& source, OutboxEvent& out) {
  char* const begin = out.position_text.data();
  const uint64_t lsn = source.commit_lsn.value();
  char* const lsn_end =
      fmt::format_to_n(begin, out.position_text.size(), "{:X}/{:X}", lsn >> 32, lsn & 0xffffffff)
          .out;
  char* const ordinal_end =
      fmt::format_to_n(lsn_end, out.position_text.size() - static_cast<size_t>(lsn_end - begin),
                       "{}", source.ordinal)
          .out;
  out.headers.push_back(Header{kSlotHeader, source.slot});
  out.headers.push_back(
      Header{kCommitLsnHeader, std::string_view(begin, static_cast<size_t>(lsn_end - begin))});
  out.headers.push_back(Header{
      kOrdinalHeader, std::string_view(lsn_end, static_cast<size_t>(ordinal_end - lsn_end))});
}

}  // namespace

Mapper::Mapper(const config::OutboxConfig& cfg, std::vector<config::TableName> tables,
               const Encoder& encoder)
    : cfg_(cfg),
      encoder_(encoder),
      router_(config::TopicRouter::Create(cfg.topic_regex, cfg.topic)),
      tables_(std::move(tables)),
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

absl::Status Mapper::Map(const pgoutput::Insert& insert, const EventSource& source,
                         OutboxEvent& out) {
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
  return MapValidated(layout, source, /*message_prefix=*/{}, out);
}

absl::Status Mapper::MapValidated(RelationLayout& layout, const EventSource& source,
                                  std::string_view message_prefix, OutboxEvent& out) {
  if (auto s = CheckNeededAreText(layout); !s.ok()) return s;
  if (auto s = CheckKeys(layout, out); !s.ok()) return s;
  if (auto s = SetTopic(layout, out); !s.ok()) return s;
  MappedRow row{.layout = layout,
                .values = values_,
                .source = source,
                .message_prefix = message_prefix,
                .payload = std::nullopt,
                .tombstone = false,
                .traceparent = std::nullopt,
                .contract = contract_};
  if (auto s = ReadPayload(row, out); !s.ok()) return s;
  row.traceparent = ReadTraceparent(layout);
  if (auto s = encoder_.Encode(row, out); !s.ok()) return s;
  if (cfg_.position_headers) AppendPositionHeaders(source, out);
  return SetPartitionAndTime(layout, out);
}

}  // namespace outboxd::outbox
