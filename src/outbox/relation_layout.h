#pragma once
// Internal to outboxd_outbox: where the configured outbox columns sit in one relation's tuples,
// computed once per Relation message so that mapping a row is a single walk with no lookups.

#include <string>
#include <vector>

#include "config/config.h"
#include "pgoutput/messages.h"

namespace outboxd::outbox::internal {

inline constexpr int kAbsent = -1;

// pg_type OIDs of json and jsonb, whose text Postgres has already validated.
inline constexpr uint32_t kJsonOid = 114;
inline constexpr uint32_t kJsonbOid = 3802;

struct RelationLayout {
  std::string table;  // "schema.table", owned: the Relation message's views die with it.
  bool is_outbox = false;
  uint16_t column_count = 0;
  int id = kAbsent;
  int aggregate_type = kAbsent;
  int aggregate_id = kAbsent;
  int payload = kAbsent;
  bool payload_is_bytea = false;
  // validate_json is on and the payload column's type does not guarantee JSON (not json,
  // jsonb or bytea), so each payload is checked.
  bool payload_needs_json_check = false;
  std::vector<int> placements;  // Parallel to OutboxConfig::additional_placement.
  int last_needed = kAbsent;    // Highest column index that Map must read.
  // Why every row of an outbox table fails, e.g. "column aggregateid not found in
  // public.outbox"; empty when all configured columns exist.
  std::string missing;
};

// `is_outbox` says whether the relation is one of the configured outbox tables.
RelationLayout BuildLayout(const pgoutput::Relation& relation, const config::OutboxConfig& cfg,
                           bool is_outbox);

}  // namespace outboxd::outbox::internal
