// Mapper's table-less outbox: a logical decoding message's JSON object, read by MessageFields,
// is mapped through the same layout-driven path as a row (one synthetic layout whose
// "columns" are the configured field names in a fixed order). Their dead-letter records are in
// dead_letter.cc.

#include <algorithm>

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

absl::Status Mapper::MapMessage(const pgoutput::LogicalMessage& message, const EventSource& source,
                                OutboxEvent& out) {
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
  return MapValidated(message_layout_, source, message.prefix, out);
}

}  // namespace outboxd::outbox
