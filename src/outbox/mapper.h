#pragma once
// Maps rows inserted into outbox tables to Kafka records, following the defaults of Debezium's
// Outbox Event Router (DESIGN.md section 5). Pure apart from one warning per table with empty
// keys: no I/O, no clock.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/record.h"
#include "common/types.h"
#include "config/config.h"
#include "config/topic.h"
#include "config/topic_router.h"
#include "outbox/contract_event.h"
#include "outbox/json_validator.h"
#include "outbox/message_fields.h"
#include "outbox/relation_layout.h"
#include "pgoutput/messages.h"

namespace outboxd::outbox {

// Where the event being mapped was read in the WAL: the source position of the contract's
// formats (proto/outboxd/v1/event.proto, SourcePosition).
struct EventSource {
  Lsn commit_lsn;  // The transaction's commit record (Begin's final_lsn).
  Lsn lsn;         // The row's (or message's) own WAL record.
  Xid xid;
  int64_t commit_time_us = 0;  // µs since 2000-01-01 UTC, as pgoutput sends it.
};

// One Kafka record to produce. Views point into the decoded WAL message (valid until the next
// one), into the Mapper's OutboxConfig, or into the owned_* strings below; so an event is
// neither copyable nor movable, and is reused from row to row instead.
struct OutboxEvent {
  OutboxEvent() = default;
  OutboxEvent(const OutboxEvent&) = delete;
  OutboxEvent& operator=(const OutboxEvent&) = delete;

  std::string topic;
  std::optional<std::string_view> key;
  std::optional<std::string_view> value;  // nullopt = tombstone (null value).
  // The extended headers (extended_headers), "id", then the header placements in order.
  absl::InlinedVector<Header, 8> headers;
  int32_t partition = -1;     // A partition placement's value; -1 = the partitioner's choice.
  int64_t timestamp_ms = 0;   // timestamp_column's value; 0 = the time of producing.
  bool empty_key = false;     // Published under empty_keys = "publish" with an empty key/type.
  std::string owned_key;      // Backing store for converted keys.
  std::string owned_value;    // Backing store for bytea-decoded or converted payloads.
  std::string owned_headers;  // Backing store for dead-letter header values.
  std::string scratch;        // Decoded bytea on its way to base64.
};

// Header names of dead-letter records, besides "id".
inline constexpr std::string_view kErrorHeader = "outboxd.error";
inline constexpr std::string_view kTableHeader = "outboxd.table";
inline constexpr std::string_view kLsnHeader = "outboxd.lsn";
inline constexpr std::string_view kXidHeader = "outboxd.xid";

// A UUID (version 7, as Debezium's runId) drawn once per process; the same on every call.
std::string ProcessRunId();
// The relation id of table-less events in RecordOrigin (OID 0 is never a table's).
inline constexpr RelationId kMessageRelation{0};

// Runs on the replication loop thread; not thread-safe.
class Mapper {
 public:
  // `cfg` must outlive the Mapper and every event it fills. `tables` are the outbox tables.
  // `run_id` is the __debezium.context.runId header (extended_headers): by default the
  // process's, fixed for its life (ProcessRunId). The config's route must compile (config
  // validation checked it); if not, every row fails with the reason.
  Mapper(const config::OutboxConfig& cfg, std::vector<config::TableName> tables,
         std::string run_id = ProcessRunId());
  Mapper(const Mapper&) = delete;
  Mapper& operator=(const Mapper&) = delete;

  // The position of the next Map / MapMessage, for the contract's formats (which carry it and
  // fall back to the commit time for occurred_at); raw ignores it.
  void SetSource(const EventSource& source) { source_ = source; }

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

  // Fills `out` from one logical decoding message of a configured prefix (the table-less
  // outbox, message_mapping.cc): its content is a JSON object whose fields stand for the
  // columns. InvalidArgument, meant for a dead-letter header, when it cannot be mapped.
  absl::Status MapMessage(const pgoutput::LogicalMessage& message, OutboxEvent& out);
  // The dead-letter record for such a message: as MapDeadLetter, with the content as emitted
  // for value, and outboxd.table naming the prefix.
  void MapMessageDeadLetter(const pgoutput::LogicalMessage& message, std::string_view reason,
                            Lsn lsn, Xid xid, OutboxEvent& out);

  // "public.outbox", or "relation <oid>" when no Relation message was seen; for log lines.
  std::string TableName(RelationId id) const;

 private:
  // The layout of table-less events: `names` receives the field names in column order.
  static internal::RelationLayout BuildMessageLayout(const config::OutboxConfig& cfg,
                                                     std::vector<std::string_view>& names);
  // Reads the row's columns up to the last one `layout` needs into values_.
  absl::Status ReadColumns(const internal::RelationLayout& layout, const pgoutput::Insert& insert);
  // values_[index], or a NULL value when `index` is kAbsent.
  pgoutput::ColumnValue Value(int index) const;
  // Fails when a column the mapping reads is unchanged-TOAST or binary.
  absl::Status CheckNeededAreText(const internal::RelationLayout& layout) const;
  absl::Status MapValidated(internal::RelationLayout& layout, OutboxEvent& out);
  // Applies empty_keys / null_keys to the id, type and key columns.
  absl::Status CheckKeys(internal::RelationLayout& layout, OutboxEvent& out);
  absl::Status SetTopic(const internal::RelationLayout& layout, OutboxEvent& out);
  // The payload as text (bytea decoded into owned_value) or NULL; in `tombstone`, whether
  // route.tombstone.on.empty.payload turns it into a null value.
  absl::Status ReadPayload(const internal::RelationLayout& layout, OutboxEvent& out,
                           std::optional<std::string_view>& payload, bool& tombstone);
  // Key and value through the configured converters (record_encoder.cc).
  void EncodeKey(const internal::RelationLayout& layout, OutboxEvent& out);
  absl::Status EncodeValue(internal::RelationLayout& layout, OutboxEvent& out);
  void EncodeStringEnvelope(const internal::RelationLayout& layout,
                            std::optional<std::string_view> payload, OutboxEvent& out);
  absl::Status EncodeJsonValue(internal::RelationLayout& layout,
                               std::optional<std::string_view> payload, OutboxEvent& out);
  void AppendEnvelopeSchema(internal::RelationLayout& layout, std::string& out);
  void SetHeaders(const internal::RelationLayout& layout, OutboxEvent& out);
  // The traceparent/tracestate headers of every format (contract_encoder.cc): appended only
  // for a valid, non-NULL traceparent, so raw records of tables without it are unchanged.
  void AppendTraceHeaders(internal::RelationLayout& layout, OutboxEvent& out);
  // The contract's formats: fills event_ from the row, then the value and headers.
  absl::Status EncodeContract(internal::RelationLayout& layout, OutboxEvent& out);
  absl::Status FillEvent(internal::RelationLayout& layout, std::optional<std::string_view> payload);
  void EncodeCloudEvent(const internal::RelationLayout& layout, OutboxEvent& out);
  absl::Status SetPartitionAndTime(const internal::RelationLayout& layout, OutboxEvent& out);

  const config::OutboxConfig& cfg_;
  const absl::StatusOr<config::TopicRouter> router_;
  const std::vector<config::TableName> tables_;
  const std::string run_id_;
  bool has_envelope_ = false;  // Some placement is "envelope": the value is a struct.
  absl::flat_hash_map<RelationId, internal::RelationLayout> relations_;
  absl::flat_hash_map<std::string, std::vector<std::string>> not_null_;  // By "schema.table".
  std::vector<pgoutput::ColumnValue> values_;    // Scratch for Map, reused across rows.
  JsonValidator json_;                           // Used only when cfg_.validate_json.
  std::vector<std::string_view> message_names_;  // Field names of table-less events (in cfg_).
  internal::RelationLayout message_layout_;
  MessageFields message_fields_;
  EventSource source_;
  std::string_view message_prefix_;              // Of the message being mapped; empty for rows.
  ContractEvent event_;                          // Of the row (contract formats).
  std::optional<std::string_view> traceparent_;  // Valid traceparent of the row, if any.
  uint64_t invalid_traceparents_ = 0;
};

}  // namespace outboxd::outbox
