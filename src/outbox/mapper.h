#pragma once
// Maps rows inserted into outbox tables to Kafka records, following the defaults of Debezium's
// Outbox Event Router (DESIGN.md section 5). One Mapper per replication stream keeps that
// stream's relation cache and reads, checks and routes each row; the shared Encoder writes its
// key, value and headers. Pure apart from one warning per table: no I/O, no clock.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/types.h"
#include "config/config.h"
#include "config/topic_router.h"
#include "outbox/contract_event.h"
#include "outbox/encoder.h"
#include "outbox/json_validator.h"
#include "outbox/message_fields.h"
#include "outbox/outbox_event.h"
#include "outbox/relation_layout.h"
#include "pgoutput/messages.h"

namespace outboxd::outbox {

// Header names of dead-letter records, besides "id".
inline constexpr std::string_view kErrorHeader = "outboxd.error";
inline constexpr std::string_view kTableHeader = "outboxd.table";
inline constexpr std::string_view kLsnHeader = "outboxd.lsn";
inline constexpr std::string_view kXidHeader = "outboxd.xid";
// position_headers: (slot, commit LSN, ordinal) identifies an event and increases with it.
inline constexpr std::string_view kSlotHeader = "outboxd.slot";
inline constexpr std::string_view kCommitLsnHeader = "outboxd.commit_lsn";
inline constexpr std::string_view kOrdinalHeader = "outboxd.ordinal";

// The relation id of table-less events in RecordOrigin (OID 0 is never a table's).
inline constexpr RelationId kMessageRelation{0};

// Runs on the replication loop thread; not thread-safe.
class Mapper {
 public:
  // `cfg` and `encoder` (CreateEncoder(cfg)) must outlive the Mapper and every event it fills;
  // Mappers of several streams may share them. `tables` are the outbox tables. The config's
  // route must compile (config validation checked it); if not, every row fails with the reason.
  Mapper(const config::OutboxConfig& cfg, std::vector<config::TableName> tables,
         const Encoder& encoder);
  Mapper(const Mapper&) = delete;
  Mapper& operator=(const Mapper&) = delete;

  // Rows whose traceparent column held no valid W3C traceparent (not propagated).
  uint64_t invalid_traceparents() const { return invalid_traceparents_; }

  // Caches the relation by OID, replacing any earlier entry (a Relation is re-sent after ALTER
  // TABLE). Never fails: an outbox table that lacks a configured column is recorded, and each
  // Map() of its rows fails with the reason, so those rows reach the dead-letter topic.
  void OnRelation(const pgoutput::Relation& relation);

  // Records the NOT NULL columns of `table` (pg_attribute.attnotnull), which set the
  // "optional" flags of json_with_schema; applies from the table's next Relation message.
  // Without it Debezium's documented table is assumed (every column but the payload NOT NULL).
  void SetNotNullColumns(const config::TableName& table, std::vector<std::string> columns);

  // True for a known relation that is a configured outbox table.
  bool IsOutboxTable(RelationId id) const;

  // An UPDATE of a row of relation `id` arrived (table.op.invalid.behavior). OK when it is not
  // an outbox table or op_invalid_behavior skips it (the caller logs at the returned level);
  // FailedPrecondition naming the table and the fix under "fatal".
  absl::Status OnUpdate(RelationId id) const;

  // Fills `out` from one inserted row read at `source` (which the contract's formats carry and
  // fall back to for occurred_at; raw ignores it), reusing its storage (no allocation once warm
  // beyond topic growth). Returns DataLoss when no Relation message was seen for the row's
  // relation or the row's column count disagrees with it (a protocol error), and
  // InvalidArgument with a reason meant for a dead-letter header when the row cannot be mapped
  // (including, with validate_json, a text payload that is not JSON). On error `out` is
  // unspecified.
  absl::Status Map(const pgoutput::Insert& insert, const EventSource& source, OutboxEvent& out);

  // Fills `out` with the dead-letter record for a row read at `source` that could not be mapped
  // or delivered: dead_letter_topic; key = aggregate id text if present; value = payload text
  // as stored (null if absent); headers "id" (if present), outboxd.error = `reason`,
  // outboxd.table, outboxd.lsn ("X/X", source.lsn) and outboxd.xid. Best effort: fields it
  // cannot find are left out. It copies `reason`. DataLoss only when the tuple disagrees with
  // its Relation.
  absl::Status MapDeadLetter(const pgoutput::Insert& insert, const EventSource& source,
                             std::string_view reason, OutboxEvent& out);

  // Fills `out` from one logical decoding message of a configured prefix (the table-less
  // outbox, message_mapping.cc) read at `source`: its content is a JSON object whose fields
  // stand for the columns. InvalidArgument, meant for a dead-letter header, when it cannot be
  // mapped.
  absl::Status MapMessage(const pgoutput::LogicalMessage& message, const EventSource& source,
                          OutboxEvent& out);
  // The dead-letter record for such a message: as MapDeadLetter, with the content as emitted
  // for value, and outboxd.table naming the prefix.
  void MapMessageDeadLetter(const pgoutput::LogicalMessage& message, const EventSource& source,
                            std::string_view reason, OutboxEvent& out);

  // "public.outbox", or "relation <oid>" when no Relation message was seen; for log lines.
  std::string TableName(RelationId id) const;

 private:
  // The layout of table-less events: `names` receives the field names in column order.
  static internal::RelationLayout BuildMessageLayout(const config::OutboxConfig& cfg,
                                                     std::vector<std::string_view>& names);
  // Reads the row's columns up to the last one `layout` needs into values_.
  absl::Status ReadColumns(const internal::RelationLayout& layout, const pgoutput::Insert& insert);
  pgoutput::ColumnValue Value(int index) const { return internal::ValueAt(values_, index); }
  // Checks, routes and encodes the row in values_; `message_prefix` is empty for a table's row.
  absl::Status MapValidated(internal::RelationLayout& layout, const EventSource& source,
                            std::string_view message_prefix, OutboxEvent& out);

  // Per-row reading (row_checks.cc).
  // Fails when a column the mapping reads is unchanged-TOAST or binary.
  absl::Status CheckNeededAreText(const internal::RelationLayout& layout) const;
  // Applies empty_keys / null_keys to the id, type and key columns.
  absl::Status CheckKeys(internal::RelationLayout& layout, OutboxEvent& out);
  absl::Status SetTopic(const internal::RelationLayout& layout, OutboxEvent& out);
  // Sets row.payload (bytea decoded into out.owned_value) and row.tombstone (whether
  // route.tombstone.on.empty.payload makes the value null); checks JSON under validate_json.
  absl::Status ReadPayload(MappedRow& row, OutboxEvent& out);
  // The row's traceparent when it is a valid W3C one; counts (and warns once per table about)
  // an invalid one.
  std::optional<std::string_view> ReadTraceparent(internal::RelationLayout& layout);
  absl::Status SetPartitionAndTime(const internal::RelationLayout& layout, OutboxEvent& out);

  const config::OutboxConfig& cfg_;
  const Encoder& encoder_;
  const absl::StatusOr<config::TopicRouter> router_;
  const std::vector<config::TableName> tables_;
  absl::flat_hash_map<RelationId, internal::RelationLayout> relations_;
  absl::flat_hash_map<std::string, std::vector<std::string>> not_null_;  // By "schema.table".
  std::vector<pgoutput::ColumnValue> values_;    // Scratch for Map, reused across rows.
  JsonValidator json_;                           // Used only when cfg_.validate_json.
  std::vector<std::string_view> message_names_;  // Field names of table-less events (in cfg_).
  internal::RelationLayout message_layout_;
  MessageFields message_fields_;
  ContractEvent contract_;  // The encoder's scratch for the contract formats, reused.
  uint64_t invalid_traceparents_ = 0;
};

}  // namespace outboxd::outbox
