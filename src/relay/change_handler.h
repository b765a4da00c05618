#pragma once
// One slot's decoded pgoutput messages on their way to Kafka: transaction framing in the
// slot's AckTracker, mapping (with the slot's own relation cache), publishing through the
// shared Publisher, and the dead-letter decisions (DESIGN.md invariants 1, 2 and 7).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "common/clock.h"
#include "config/config.h"
#include "metrics/metrics.h"
#include "outbox/encoder.h"
#include "outbox/mapper.h"
#include "pgoutput/messages.h"
#include "position/position_record.h"
#include "relay/ack_tracker.h"
#include "relay/publisher.h"
#include "relay/record_origin.h"
#include "relay/replication_session.h"

namespace outboxd::relay {

// Runs on the loop thread.
class ChangeHandler {
 public:
  // Everything passed by reference must outlive the handler; `stream` is the id `publisher`
  // gave `tracker`. `encoder` (the output format) is shared by every slot's handler. `slot`
  // names the slot in events' positions (outboxd.slot) and its metrics (metrics.Slot());
  // empty = [postgres] slot.
  ChangeHandler(const config::Config& config, const outbox::Encoder& encoder, Publisher& publisher,
                StreamId stream, AckTracker& tracker, const Clock& clock,
                metrics::RelayMetrics& metrics, const std::string& slot = {});

  // Decodes and handles one WAL message. ResourceExhausted: Kafka's queue is full; call again
  // later with the same message. DataLoss: malformed or out-of-order protocol messages. Other
  // errors end the stream; those from the Kafka side are blamed on it (relay/failure.h).
  absl::Status Handle(const WalMessage& wal);

  // The NOT NULL columns of `table` (json_with_schema); apply from its next Relation message.
  void SetNotNullColumns(const config::TableName& table, std::vector<std::string> columns) {
    mapper_.SetNotNullColumns(table, std::move(columns));
  }
  // Transactions whose commit ends at or below `lsn` are in Kafka already (the position
  // record): a replay passes over them without publishing, and over the first `partial.events`
  // outbox events of the one split at `partial.commit_lsn`. Call before the first message.
  void SkipPublishedUpTo(Lsn lsn, position::PartialTransaction partial = {}) {
    published_up_to_ = lsn;
    published_partial_ = partial;
  }
  // The open transaction's commit LSN (Begin's final_lsn) and how many of its outbox events
  // were handed to Kafka (published or dead-lettered) so far.
  position::PartialTransaction OpenTransactionProgress() const {
    return {.commit_lsn = current_commit_lsn_, .events = events_in_tx_};
  }
  // Inside a transaction (or a non-transactional message's own unit) whose Commit has not
  // arrived yet.
  bool InTransaction() const { return tracker_.InTransaction(); }
  Xid open_xid() const { return current_xid_; }

 private:
  absl::Status HandleMessage(const pgoutput::Message& message, const WalMessage& wal);
  absl::Status HandleBegin(const pgoutput::Begin& begin);
  // Whether the unit that commits at `commit_lsn` is one Kafka already has; counts it.
  bool AlreadyPublished(Lsn commit_lsn);
  // Whether the next outbox event of the open transaction is one Kafka already has (a split
  // transaction's published part); counts it. Call once per outbox event not yet counted.
  bool EventAlreadyPublished();
  // Counts an outbox event of the open transaction as handed to Kafka when `handled` is OK.
  absl::Status CountEvent(absl::Status handled);
  // table.op.invalid.behavior for an UPDATE; non-outbox tables count as ignored rows.
  absl::Status HandleUpdate(const pgoutput::Update& update);
  absl::Status HandleInsert(const pgoutput::Insert& insert, const WalMessage& wal);
  absl::Status DeadLetterRow(const pgoutput::Insert& insert, const RecordOrigin& origin,
                             std::string_view reason, std::string_view label);
  // The origin of a row or message at `lsn` of the current transaction, and its source
  // position (the contract formats carry it).
  RecordOrigin OriginAt(Lsn lsn, RelationId relation, const WalMessage& wal);
  outbox::EventSource SourceAt(Lsn lsn) const;
  // Produces event_ as `mapped` (the mapper's result) left it. What the mapper or the producer
  // refuses goes through `dead_letter(reason, label)`; anything else is returned as it is.
  absl::Status PublishMapped(
      absl::Status mapped, const RecordOrigin& origin,
      absl::FunctionRef<absl::Status(std::string_view reason, std::string_view label)> dead_letter);
  // Hands a queued dead letter to the publisher; reading stops until it is produced.
  absl::Status ProduceDeadLetter(DeadLetter dead_letter, std::string_view label);
  // A stable name for log lines and late dead letters (RecordOrigin::table).
  std::string_view TableName(RelationId relation);
  // The table-less outbox (change_handler_messages.cc).
  bool IsOutboxPrefix(std::string_view prefix) const;
  absl::Status HandleLogicalMessage(const pgoutput::LogicalMessage& message, const WalMessage& wal);
  absl::Status PublishMessage(const pgoutput::LogicalMessage& message, const WalMessage& wal);
  absl::Status DeadLetterMessage(const pgoutput::LogicalMessage& message,
                                 const RecordOrigin& origin, std::string_view reason,
                                 std::string_view label);

  const config::Config& config_;
  // With parallel slots "<slot>_<i>": (slot, commit LSN, ordinal) must stay unique when one
  // Postgres transaction's events are split over several slots.
  const std::string slot_;
  Publisher& publisher_;
  const StreamId stream_;
  AckTracker& tracker_;
  const Clock& clock_;
  metrics::RelayMetrics& metrics_;
  metrics::SlotMetrics& slot_metrics_;  // metrics_.Slot(slot_), looked up once.
  outbox::Mapper mapper_;
  outbox::OutboxEvent event_;  // Reused for every row.
  // Table names outlive the Relation messages that named them: in-flight records point here.
  absl::node_hash_set<std::string> table_names_;
  absl::flat_hash_map<RelationId, std::string_view> table_of_;

  AckTracker::TxId current_tx_ = 0;
  Xid current_xid_;
  int64_t current_commit_time_us_ = 0;
  Lsn current_commit_lsn_;                // Begin's final_lsn, for the contract's source position.
  bool standalone_message_open_ = false;  // A non-transactional message's own unit is open.
  // Replayed transactions that Kafka already has (SkipPublishedUpTo).
  Lsn published_up_to_;
  bool skipping_ = false;  // The open transaction is one of them.
  position::PartialTransaction published_partial_;
  uint64_t events_in_tx_ = 0;    // Outbox events of the open transaction handled so far.
  uint64_t events_to_skip_ = 0;  // Of the open transaction: its published part, if split.
  uint64_t skipped_transactions_ = 0;
  uint64_t skipped_rows_ = 0;
};

}  // namespace outboxd::relay
