#include "relay/change_handler.h"

#include <algorithm>
#include <variant>

#include "common/log.h"
#include "common/status.h"
#include "common/strings.h"
#include "pgoutput/decoder.h"
#include "relay/failure.h"

namespace outboxd::relay {

ChangeHandler::ChangeHandler(const config::Config& config, const outbox::Encoder& encoder,
                             Publisher& publisher, StreamId stream, AckTracker& tracker,
                             const Clock& clock, metrics::RelayMetrics& metrics,
                             const std::string& slot)
    : config_(config),
      slot_(slot.empty() ? config.postgres.slot : slot),
      publisher_(publisher),
      stream_(stream),
      tracker_(tracker),
      clock_(clock),
      metrics_(metrics),
      slot_metrics_(metrics.Slot(slot_)),
      mapper_(config.outbox, config.postgres.tables, encoder) {}

absl::Status ChangeHandler::Handle(const WalMessage& wal) {
  auto message = pgoutput::Decode(wal.data);
  if (!message.ok()) {
    return Annotate(message.status(), Concat("at WAL ", wal.wal_start.ToString()));
  }
  return HandleMessage(*message, wal);
}

absl::Status ChangeHandler::HandleMessage(const pgoutput::Message& message, const WalMessage& wal) {
  if (const auto* insert = std::get_if<pgoutput::Insert>(&message)) {
    return HandleInsert(*insert, wal);
  }
  if (const auto* begin = std::get_if<pgoutput::Begin>(&message)) return HandleBegin(*begin);
  if (const auto* commit = std::get_if<pgoutput::Commit>(&message)) {
    if (!tracker_.InTransaction()) {
      return absl::DataLossError("pgoutput: Commit outside a transaction");
    }
    tracker_.Commit(commit->end_lsn);
    skipping_ = false;
    slot_metrics_.transactions.Add();
  } else if (const auto* logical = std::get_if<pgoutput::LogicalMessage>(&message)) {
    return HandleLogicalMessage(*logical, wal);
  } else if (const auto* relation = std::get_if<pgoutput::Relation>(&message)) {
    mapper_.OnRelation(*relation);
    table_of_.erase(relation->id);  // Renamed tables get their new name.
  } else if (const auto* update = std::get_if<pgoutput::Update>(&message)) {
    return HandleUpdate(*update);
  } else if (std::holds_alternative<pgoutput::Delete>(message) ||
             std::holds_alternative<pgoutput::Truncate>(message)) {
    slot_metrics_.rows_ignored.Add();  // Only inserts are events; a shared publication sends more.
  }
  // Origin and Type messages carry nothing outboxd publishes.
  return absl::OkStatus();
}

absl::Status ChangeHandler::HandleBegin(const pgoutput::Begin& begin) {
  if (tracker_.InTransaction()) return absl::DataLossError("pgoutput: Begin inside a transaction");
  current_tx_ = tracker_.Begin(begin.commit_time_us);
  current_xid_ = begin.xid;
  current_commit_time_us_ = begin.commit_time_us;
  current_commit_lsn_ = begin.final_lsn;
  skipping_ = AlreadyPublished(begin.final_lsn);
  events_in_tx_ = events_to_skip_ = 0;
  if (published_partial_.commit_lsn.IsValid() && begin.final_lsn >= published_partial_.commit_lsn) {
    if (begin.final_lsn == published_partial_.commit_lsn) {
      events_to_skip_ = published_partial_.events;
      log::Info(
          "the transaction committing at {} was split over Kafka transactions before the "
          "restart: its first {} outbox events are in Kafka and are not published again",
          begin.final_lsn.ToString(), events_to_skip_);
    }
    published_partial_ = {};
  }
  const int64_t age_us = clock_.PostgresNowMicros() - begin.commit_time_us;
  metrics_.stages.received.Observe(static_cast<double>(std::max<int64_t>(age_us, 0)) / 1e6);
  return absl::OkStatus();
}

bool ChangeHandler::EventAlreadyPublished() {
  if (events_in_tx_ >= events_to_skip_) return false;
  ++events_in_tx_;
  ++skipped_rows_;
  return true;
}

absl::Status ChangeHandler::CountEvent(absl::Status handled) {
  if (handled.ok()) ++events_in_tx_;
  return handled;
}

bool ChangeHandler::AlreadyPublished(Lsn commit_lsn) {
  // `commit_lsn` is where the commit record starts (Begin's final_lsn, a message's own LSN). The
  // recorded LSN is a commit's end or a WAL end between records, so the commit starts before it
  // exactly when it ends at or below it.
  if (commit_lsn < published_up_to_) {
    ++skipped_transactions_;
    slot_metrics_.replayed_transactions_skipped.Add();
    return true;
  }
  if (skipped_transactions_ > 0) {
    log::Info(
        "skipped {} replayed transactions ({} outbox rows) that Kafka already has: the position "
        "record covers them up to {}",
        skipped_transactions_, skipped_rows_, published_up_to_.ToString());
  }
  published_up_to_ = Lsn();  // The replay is over: nothing later can be below it.
  skipped_transactions_ = skipped_rows_ = 0;
  return false;
}

absl::Status ChangeHandler::HandleUpdate(const pgoutput::Update& update) {
  if (skipping_) return absl::OkStatus();  // Seen (and logged) before the replay.
  if (!mapper_.IsOutboxTable(update.relation)) {
    slot_metrics_.rows_ignored.Add();  // Only inserts are events; a shared publication sends more.
    return absl::OkStatus();
  }
  // table.op.invalid.behavior: outbox rows are only inserted; an UPDATE is skipped and logged.
  const std::string_view table = TableName(update.relation);
  metrics_.invalid_operations.With(table).Add();
  if (auto s = mapper_.OnUpdate(update.relation); !s.ok()) return s;
  if (config_.outbox.op_invalid_behavior == config::InvalidOpBehavior::kError) {
    log::Error("skipped an UPDATE of outbox table {}: outbox rows should only be inserted", table);
  } else {
    log::Warn("skipped an UPDATE of outbox table {}: outbox rows should only be inserted", table);
  }
  return absl::OkStatus();
}

absl::Status ChangeHandler::HandleInsert(const pgoutput::Insert& insert, const WalMessage& wal) {
  if (!tracker_.InTransaction()) {
    return absl::DataLossError("pgoutput: Insert outside a transaction");
  }
  if (!mapper_.IsOutboxTable(insert.relation)) {
    slot_metrics_.rows_ignored.Add();
    return absl::OkStatus();
  }
  if (skipping_) {
    ++skipped_rows_;
    return absl::OkStatus();
  }
  if (EventAlreadyPublished()) return absl::OkStatus();
  const RecordOrigin origin = OriginAt(wal.wal_start, insert.relation, wal);
  return CountEvent(PublishMapped(mapper_.Map(insert, SourceAt(origin.lsn), event_), origin,
                                  [&](std::string_view reason, std::string_view label) {
                                    return DeadLetterRow(insert, origin, reason, label);
                                  }));
}

outbox::EventSource ChangeHandler::SourceAt(Lsn lsn) const {
  return {.commit_lsn = current_commit_lsn_,
          .lsn = lsn,
          .xid = current_xid_,
          .commit_time_us = current_commit_time_us_,
          .slot = slot_,
          .ordinal = events_in_tx_};
}

RecordOrigin ChangeHandler::OriginAt(Lsn lsn, RelationId relation, const WalMessage& wal) {
  return RecordOrigin{.stream = stream_,
                      .tx = current_tx_,
                      .lsn = lsn,
                      .xid = current_xid_,
                      .relation = relation,
                      .table = TableName(relation),
                      .commit_time_us = current_commit_time_us_,
                      .received = wal.received};
}

std::string_view ChangeHandler::TableName(RelationId relation) {
  auto it = table_of_.find(relation);
  if (it != table_of_.end()) return it->second;
  const std::string& name = *table_names_.insert(mapper_.TableName(relation)).first;
  table_of_.emplace(relation, name);
  return name;
}

absl::Status ChangeHandler::PublishMapped(
    absl::Status mapped, const RecordOrigin& origin,
    absl::FunctionRef<absl::Status(std::string_view reason, std::string_view label)> dead_letter) {
  if (!mapped.ok()) {
    if (!absl::IsInvalidArgument(mapped)) return mapped;
    return dead_letter(MessageOf(mapped), kUnmappable);
  }
  absl::Status produced = publisher_.Publish(event_, origin);
  if (produced.ok()) {
    if (event_.empty_key) metrics_.empty_key_events.With(origin.table).Add();
    return produced;
  }
  // Anything but an outright refusal (too large, illegal topic) is backpressure (retried with
  // the same WAL message) or a reason to stop.
  if (absl::IsResourceExhausted(produced)) return produced;
  if (!absl::IsInvalidArgument(produced)) return Blame(FailureSide::kKafka, produced);
  return dead_letter(MessageOf(produced),
                     publisher_.RejectedLate(origin) ? kBrokerRejected : kProducerRefused);
}

absl::Status ChangeHandler::DeadLetterRow(const pgoutput::Insert& insert,
                                          const RecordOrigin& origin, std::string_view reason,
                                          std::string_view label) {
  log::Warn("dead-lettering row of {} at WAL {} (xid {}) to {}: {}", origin.table,
            origin.lsn.ToString(), origin.xid.value, config_.outbox.dead_letter_topic, reason);
  if (auto s = mapper_.MapDeadLetter(insert, SourceAt(origin.lsn), reason, event_); !s.ok()) {
    return s;
  }
  return ProduceDeadLetter(DeadLetter::FromEvent(event_, origin), label);
}

absl::Status ChangeHandler::ProduceDeadLetter(DeadLetter dead_letter, std::string_view label) {
  publisher_.QueueDeadLetter(std::move(dead_letter), label);
  return Blame(FailureSide::kKafka, publisher_.ProduceDeadLetters());
}

}  // namespace outboxd::relay
