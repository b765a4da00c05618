// ChangeHandler's table-less outbox path: logical decoding messages (pg_logical_emit_message) whose
// prefix is one of [postgres] message_prefixes are published like outbox rows.

#include <algorithm>

#include "common/log.h"
#include "common/status.h"
#include "relay/change_handler.h"

namespace outboxd::relay {

bool ChangeHandler::IsOutboxPrefix(std::string_view prefix) const {
  const auto& prefixes = config_.postgres.message_prefixes;
  return std::find(prefixes.begin(), prefixes.end(), prefix) != prefixes.end();
}

absl::Status ChangeHandler::HandleLogicalMessage(const pgoutput::LogicalMessage& message,
                                                 const WalMessage& wal) {
  if (!IsOutboxPrefix(message.prefix)) {
    slot_metrics_.rows_ignored.Add();  // Another application's messages on the same stream.
    return absl::OkStatus();
  }
  if (message.transactional && !tracker_.InTransaction()) {
    return absl::DataLossError("pgoutput: transactional logical message outside a transaction");
  }
  if (message.transactional ? skipping_
                            : !standalone_message_open_ && AlreadyPublished(message.lsn)) {
    ++skipped_rows_;
    return absl::OkStatus();
  }
  if (message.transactional && EventAlreadyPublished()) return absl::OkStatus();
  // A non-transactional message stands alone in the stream: it is its own unit of
  // confirmation. Its pseudo-transaction stays open across a backpressure retry.
  if (!message.transactional && !standalone_message_open_) {
    if (tracker_.InTransaction()) {
      return absl::DataLossError(
          "pgoutput: non-transactional logical message inside a transaction");
    }
    current_tx_ = tracker_.Begin();
    current_xid_ = Xid{0};
    current_commit_time_us_ = 0;
    current_commit_lsn_ = message.lsn;  // Its own position: it commits nothing else.
    events_in_tx_ = events_to_skip_ = 0;
    standalone_message_open_ = true;
  }
  absl::Status s = CountEvent(PublishMessage(message, wal));
  if (standalone_message_open_ && !absl::IsResourceExhausted(s)) {
    // Confirming one past the message's own LSN makes a restart skip it and nothing else.
    tracker_.Commit(Lsn(message.lsn.value() + 1));
    standalone_message_open_ = false;
  }
  return s;
}

absl::Status ChangeHandler::PublishMessage(const pgoutput::LogicalMessage& message,
                                           const WalMessage& wal) {
  const RecordOrigin origin = OriginAt(message.lsn, outbox::kMessageRelation, wal);
  return PublishMapped(mapper_.MapMessage(message, SourceAt(origin.lsn), event_), origin,
                       [&](std::string_view reason, std::string_view label) {
                         return DeadLetterMessage(message, origin, reason, label);
                       });
}

absl::Status ChangeHandler::DeadLetterMessage(const pgoutput::LogicalMessage& message,
                                              const RecordOrigin& origin, std::string_view reason,
                                              std::string_view label) {
  log::Warn("dead-lettering logical message with prefix \"{}\" at WAL {} (xid {}) to {}: {}",
            message.prefix, origin.lsn.ToString(), origin.xid.value,
            config_.outbox.dead_letter_topic, reason);
  mapper_.MapMessageDeadLetter(message, SourceAt(origin.lsn), reason, event_);
  return ProduceDeadLetter(DeadLetter::FromEvent(event_, origin), label);
}

}  // namespace outboxd::relay
