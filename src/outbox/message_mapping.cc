// Mapper's table-less outbox: a logical decoding message's JSON object, read by MessageFields,
// is mapped through the same layout-driven path as a row (one synthetic layout whose
// "columns" are the configured field names in a fixed order).

#include <algorithm>
#include <iterator>

#include "common/status.h"
#include "fmt/format.h"
#include "outbox/mapper.h"

namespace outboxd::outbox {

internal::RelationLayout Mapper::BuildMessageLayout(const config::OutboxConfig& cfg,
                                                    std::vector<std::string_view>& names) {
  // The fields as the text columns of a pretend relation, each name once (one field may play
  // several roles), so the layout comes from the same BuildLayout as a table's.
  auto add = [&](std::string_view name) {
    if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(name);
    }
  };
  add(cfg.id_column);
  add(cfg.aggregate_type_column);
  add(cfg.aggregate_id_column);
  add(cfg.payload_column);
  for (const config::AdditionalField& field : cfg.additional_placement) add(field.column);
  add(cfg.timestamp_column);
  // The contract's fields: a message simply lacks those it does not carry. occurred_at is not
  // read from messages (their JSON has no Postgres timestamp text); it is the commit time.
  config::OutboxConfig message_cfg = cfg;
  message_cfg.occurred_at_column = {};
  for (const config::ContractColumn* column :
       {&cfg.type_column, &cfg.correlation_id_column, &cfg.causation_id_column,
        &cfg.traceparent_column, &cfg.tracestate_column, &cfg.content_type_column}) {
    add(column->name);
  }
  pgoutput::Relation relation;
  relation.id = kMessageRelation;
  for (std::string_view name : names) {
    relation.columns.push_back(
        {.flags = 0, .name = name, .type_oid = internal::kTextOid, .type_modifier = -1});
  }
  internal::RelationLayout layout = internal::BuildLayout(relation, message_cfg, true, nullptr);
  layout.table = "logical decoding messages";
  return layout;
}

absl::Status Mapper::MapMessage(const pgoutput::LogicalMessage& message, OutboxEvent& out) {
  if (auto s = message_fields_.Parse(message.content, message_names_, values_); !s.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("logical message with prefix \"{}\": {}", message.prefix, MessageOf(s)));
  }
  message_layout_.payload_needs_json_check =
      cfg_.validate_json &&
      !message_fields_.structured(static_cast<size_t>(message_layout_.payload));
  // A JSON-valued payload field is JSON for the contract; a string field is text.
  message_layout_.payload_is_json =
      message_fields_.structured(static_cast<size_t>(message_layout_.payload));
  message_prefix_ = message.prefix;
  absl::Status mapped = MapValidated(message_layout_, out);
  message_prefix_ = {};
  return mapped;
}

void Mapper::MapMessageDeadLetter(const pgoutput::LogicalMessage& message, std::string_view reason,
                                  Lsn lsn, Xid xid, OutboxEvent& out) {
  std::string& owned = out.owned_headers;
  owned.assign(reason);
  const size_t source_at = owned.size();
  fmt::format_to(std::back_inserter(owned), "logical message with prefix {}", message.prefix);
  const size_t lsn_at = owned.size();
  owned.append(lsn.ToString());
  const size_t xid_at = owned.size();
  fmt::format_to(std::back_inserter(owned), "{}", xid.value);
  const std::string_view all = owned;

  out.topic.assign(cfg_.dead_letter_topic);
  out.key.reset();
  out.value = message.content;  // As emitted, so nothing is lost.
  out.owned_value.clear();
  // erase, not clear: InlinedVector::clear frees a spilled buffer that the next row needs.
  out.headers.erase(out.headers.begin(), out.headers.end());
  // The id and key when the content parses far enough to name them.
  if (message_fields_.Parse(message.content, message_names_, values_).ok()) {
    const pgoutput::ColumnValue id = Value(message_layout_.id);
    if (id.kind == pgoutput::ColumnKind::kText) out.headers.push_back(Header{"id", id.data});
    const pgoutput::ColumnValue key = Value(message_layout_.aggregate_id);
    if (key.kind == pgoutput::ColumnKind::kText) out.key = key.data;
  }
  out.headers.push_back(Header{kErrorHeader, all.substr(0, source_at)});
  out.headers.push_back(Header{kTableHeader, all.substr(source_at, lsn_at - source_at)});
  out.headers.push_back(Header{kLsnHeader, all.substr(lsn_at, xid_at - lsn_at)});
  out.headers.push_back(Header{kXidHeader, all.substr(xid_at)});
}

}  // namespace outboxd::outbox
