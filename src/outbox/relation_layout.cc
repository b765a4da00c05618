#include "outbox/relation_layout.h"

#include <algorithm>
#include <string_view>

#include "fmt/format.h"
#include "fmt/ranges.h"
#include "outbox/bytea.h"

namespace outboxd::outbox::internal {
namespace {

int IndexOf(const pgoutput::Relation& relation, std::string_view column) {
  for (size_t i = 0; i < relation.columns.size(); ++i) {
    if (relation.columns[i].name == column) return static_cast<int>(i);
  }
  return kAbsent;
}

bool IsNotNull(const std::vector<std::string>* not_null, const config::OutboxConfig& cfg,
               const std::string& column) {
  if (not_null != nullptr) {
    return std::find(not_null->begin(), not_null->end(), column) != not_null->end();
  }
  return column != cfg.payload_column;  // Debezium's documented table.
}

// Column `index` (kAbsent: nothing to check) must be a timestamp or timestamptz, as config key
// `key` asks; sets `has_zone`, else records why in layout.missing.
void CheckTimestampType(const pgoutput::Relation& relation, int index, std::string_view key,
                        std::string_view column, RelationLayout& layout, bool& has_zone) {
  if (index == kAbsent) return;
  const uint32_t oid = relation.columns[static_cast<size_t>(index)].type_oid;
  has_zone = oid == kTimestamptzOid;
  if (oid != kTimestampOid && oid != kTimestamptzOid) {
    layout.missing = fmt::format(
        "column {} of {} is not a timestamp; {} must name a timestamptz or timestamp column",
        column, layout.table, key);
  }
}

// Fills the Connect schemas; a column the JSON converters need but cannot convert makes every
// row of the table fail with the reason.
void AddSchemas(const pgoutput::Relation& relation, const config::OutboxConfig& cfg,
                const std::vector<std::string>* not_null, RelationLayout& layout) {
  std::vector<std::string_view> unsupported;
  auto schema_of = [&](int index, bool needed) -> std::optional<ColumnSchema> {
    if (index == kAbsent) return std::nullopt;
    const pgoutput::RelationColumn& column = relation.columns[static_cast<size_t>(index)];
    std::optional<ColumnSchema> schema =
        SchemaOfType(column.type_oid, IsNotNull(not_null, cfg, std::string(column.name)));
    if (!schema && needed) unsupported.push_back(column.name);
    return schema;
  };
  const bool json_key = cfg.key_converter != config::Converter::kString;
  const config::Converter value_converter = config::NonBytesValueConverter(cfg);
  const bool json_value =
      value_converter != config::Converter::kString && value_converter != config::Converter::kBytes;
  layout.key_schema = schema_of(layout.aggregate_id, json_key);
  layout.payload_schema = schema_of(layout.payload, json_value);
  for (size_t i = 0; i < layout.placements.size(); ++i) {
    const bool in_value = cfg.additional_placement[i].placement == config::Placement::kEnvelope;
    layout.placement_schemas.push_back(schema_of(layout.placements[i], json_value && in_value));
  }
  if (!unsupported.empty() && layout.missing.empty()) {
    layout.missing = fmt::format(
        "column{} {} of {} ha{} a type the JSON converters cannot write as Debezium does "
        "(supported: text, varchar, char, uuid, json, jsonb, bytea, smallint, integer, bigint, "
        "boolean)",
        unsupported.size() > 1 ? "s" : "", fmt::join(unsupported, ", "), layout.table,
        unsupported.size() > 1 ? "ve" : "s");
  }
}

// The event contract's columns. A required one (set explicitly, or the type column of
// CloudEvents, whose ce_type is mandatory) that the table lacks fails every row; outboxd check
// and run refuse to start on it first (mapping_check.h).
template <typename Locate>
void LocateContractColumns(const pgoutput::Relation& relation, const config::OutboxConfig& cfg,
                           RelationLayout& layout, Locate&& locate) {
  auto optional = [&](const config::ContractColumn& column, bool required) {
    const int index = IndexOf(relation, column.name);
    if (index == kAbsent && !(required || column.required)) return kAbsent;
    return locate(column.name);
  };
  layout.traceparent = optional(cfg.traceparent_column, false);
  layout.tracestate = optional(cfg.tracestate_column, false);
  if (cfg.format == config::Format::kRaw) return;
  layout.type = optional(cfg.type_column, cfg.format == config::Format::kCloudEvents);
  layout.occurred_at = optional(cfg.occurred_at_column, false);
  layout.correlation_id = optional(cfg.correlation_id_column, false);
  layout.causation_id = optional(cfg.causation_id_column, false);
  layout.content_type = optional(cfg.content_type_column, false);
  CheckTimestampType(relation, layout.occurred_at, "occurred_at_column",
                     cfg.occurred_at_column.name, layout, layout.occurred_at_has_zone);
}

}  // namespace

RelationLayout BuildLayout(const pgoutput::Relation& relation, const config::OutboxConfig& cfg,
                           bool is_outbox, const std::vector<std::string>* not_null) {
  RelationLayout layout;
  layout.table = fmt::format("{}.{}", relation.namespace_name, relation.relation_name);
  layout.is_outbox = is_outbox;
  layout.column_count = static_cast<uint16_t>(relation.columns.size());

  std::vector<std::string_view> not_found;
  auto locate = [&](const std::string& column) {
    const int index = IndexOf(relation, column);
    if (index == kAbsent) {
      // One column may serve several roles; report it once.
      if (std::find(not_found.begin(), not_found.end(), column) == not_found.end()) {
        not_found.push_back(column);
      }
    }
    layout.last_needed = std::max(layout.last_needed, index);
    return index;
  };
  layout.id = locate(cfg.id_column);
  layout.aggregate_type = locate(cfg.aggregate_type_column);
  layout.aggregate_id = locate(cfg.aggregate_id_column);
  layout.payload = locate(cfg.payload_column);
  for (const config::AdditionalField& placement : cfg.additional_placement) {
    layout.placements.push_back(locate(placement.column));
  }
  if (!cfg.timestamp_column.empty()) {
    layout.timestamp = locate(cfg.timestamp_column);
    CheckTimestampType(relation, layout.timestamp, "timestamp_column", cfg.timestamp_column, layout,
                       layout.timestamp_has_zone);
  }
  LocateContractColumns(relation, cfg, layout, locate);
  if (layout.payload != kAbsent) {
    const uint32_t oid = relation.columns[layout.payload].type_oid;
    layout.payload_is_bytea = oid == kByteaOid;
    layout.payload_is_json = oid == kJsonOid || oid == kJsonbOid;
    layout.payload_needs_json_check =
        cfg.validate_json && oid != kJsonOid && oid != kJsonbOid && oid != kByteaOid;
  }
  if (!not_found.empty()) {
    layout.missing = fmt::format("column{} {} not found in {}", not_found.size() > 1 ? "s" : "",
                                 fmt::join(not_found, ", "), layout.table);
  }
  if (is_outbox) AddSchemas(relation, cfg, not_null, layout);
  return layout;
}

}  // namespace outboxd::outbox::internal
