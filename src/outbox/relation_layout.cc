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

}  // namespace

RelationLayout BuildLayout(const pgoutput::Relation& relation, const config::OutboxConfig& cfg,
                           bool is_outbox) {
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
  for (const config::HeaderPlacement& placement : cfg.additional_placement) {
    layout.placements.push_back(locate(placement.column));
  }
  if (layout.payload != kAbsent) {
    const uint32_t oid = relation.columns[layout.payload].type_oid;
    layout.payload_is_bytea = oid == kByteaOid;
    layout.payload_needs_json_check =
        cfg.validate_json && oid != kJsonOid && oid != kJsonbOid && oid != kByteaOid;
  }
  if (!not_found.empty()) {
    layout.missing = fmt::format("column{} {} not found in {}", not_found.size() > 1 ? "s" : "",
                                 fmt::join(not_found, ", "), layout.table);
  }
  return layout;
}

}  // namespace outboxd::outbox::internal
