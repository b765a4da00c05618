#pragma once
// Maps rows inserted into outbox tables to Kafka records, following the defaults of Debezium's
// Outbox Event Router (DESIGN.md section 5). Pure: no I/O, no clock.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "common/record.h"
#include "common/types.h"
#include "config/config.h"
#include "config/topic.h"
#include "outbox/json_validator.h"
#include "outbox/relation_layout.h"
#include "pgoutput/messages.h"

namespace outboxd::outbox {

// One Kafka record to produce. Views point into the decoded WAL message (valid until the next
// one), into the Mapper's OutboxConfig, or into the owned_* strings below; so an event is
// neither copyable nor movable, and is reused from row to row instead.
struct OutboxEvent {
  OutboxEvent() = default;
  OutboxEvent(const OutboxEvent&) = delete;
  OutboxEvent& operator=(const OutboxEvent&) = delete;

  std::string topic;
  std::optional<std::string_view> key;
  std::optional<std::string_view> value;   // nullopt = tombstone (null value).
  absl::InlinedVector<Header, 4> headers;  // "id" first, then additional_placement in order.
  std::string owned_value;                 // Backing store for bytea-decoded payloads.
  std::string owned_headers;               // Backing store for dead-letter header values.
};

// Header names of dead-letter records, besides "id".
inline constexpr std::string_view kErrorHeader = "outboxd.error";
inline constexpr std::string_view kTableHeader = "outboxd.table";
inline constexpr std::string_view kLsnHeader = "outboxd.lsn";
inline constexpr std::string_view kXidHeader = "outboxd.xid";

// Runs on the replication loop thread; not thread-safe.
class Mapper {
 public:
  // `cfg` must outlive the Mapper and every event it fills. `tables` are the outbox tables.
  Mapper(const config::OutboxConfig& cfg, std::vector<config::TableName> tables);
  Mapper(const Mapper&) = delete;
  Mapper& operator=(const Mapper&) = delete;

  // Caches the relation by OID, replacing any earlier entry (a Relation is re-sent after ALTER
  // TABLE). Never fails: an outbox table that lacks a configured column is recorded, and each
  // Map() of its rows fails with the reason, so those rows reach the dead-letter topic.
  void OnRelation(const pgoutput::Relation& relation);

  // True for a known relation that is a configured outbox table.
  bool IsOutboxTable(RelationId id) const;

  // Fills `out` from one inserted row, reusing its storage (no allocation once warm beyond
  // topic growth). Returns DataLoss when no Relation message was seen for the row's relation or
  // the row's column count disagrees with it (a protocol error), and InvalidArgument with a
  // reason meant for a dead-letter header when the row cannot be mapped (including, with
  // validate_json, a text payload that is not JSON). On error `out` is
  // unspecified.
  absl::Status Map(const pgoutput::Insert& insert, OutboxEvent& out);

  // Fills `out` with the dead-letter record for a row that could not be mapped or delivered:
  // dead_letter_topic; key = aggregate id text if present; value = payload text as stored (null
  // if absent); headers "id" (if present), outboxd.error = `reason`, outboxd.table,
  // outboxd.lsn ("X/X") and outboxd.xid. Best effort: fields it cannot find are left out. It
  // copies `reason`. Returns DataLoss only when the tuple disagrees with its Relation.
  absl::Status MapDeadLetter(const pgoutput::Insert& insert, std::string_view reason, Lsn lsn,
                             Xid xid, OutboxEvent& out);

  // "public.outbox", or "relation <oid>" when no Relation message was seen; for log lines.
  std::string TableName(RelationId id) const;

 private:
  // Reads the row's columns up to the last one `layout` needs into values_.
  absl::Status ReadColumns(const internal::RelationLayout& layout, const pgoutput::Insert& insert);
  // values_[index], or a NULL value when `index` is kAbsent.
  pgoutput::ColumnValue Value(int index) const;
  // Fails when a column the mapping reads is unchanged-TOAST or binary.
  absl::Status CheckNeededAreText(const internal::RelationLayout& layout) const;
  absl::Status MapValidated(const internal::RelationLayout& layout, OutboxEvent& out);
  absl::Status SetPayload(const internal::RelationLayout& layout, OutboxEvent& out);

  const config::OutboxConfig& cfg_;
  const config::TopicTemplate topic_;  // Views into cfg_.topic.
  const std::vector<config::TableName> tables_;
  absl::flat_hash_map<RelationId, internal::RelationLayout> relations_;
  std::vector<pgoutput::ColumnValue> values_;  // Scratch for Map, reused across rows.
  JsonValidator json_;                         // Used only when cfg_.validate_json.
};

}  // namespace outboxd::outbox
