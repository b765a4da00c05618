// A stream's side of Kafka: in exactly_once, closing its Kafka transactions at Postgres commit
// boundaries (or splitting one too long) with the position record inside and confirming after
// the commit; in at-least-once, the position record written on a timer.

#include <algorithm>

#include "common/log.h"
#include "common/strings.h"
#include "relay/failure.h"
#include "relay/slot_stream.h"

namespace outboxd::relay {
namespace {

// How soon the first position record of a stream is retried.
constexpr auto kFirstPositionRetry = std::chrono::milliseconds(200);

}  // namespace

absl::Status SlotStream::CloseIfDue() {
  if (closed_ || publisher_.dead_letters_waiting(id_)) return absl::OkStatus();
  if (!changes_.InTransaction()) {
    if (!publisher_.TransactionDue()) return absl::OkStatus();
    split_logged_ = false;
    return Close({});
  }
  // Too long for one Kafka transaction: commit the part handed to Kafka so far, with a
  // position record that says how much of it is there.
  const position::PartialTransaction progress = changes_.OpenTransactionProgress();
  if (!publisher_.TransactionMustSplit() || progress.events == 0 || ctx_.positions == nullptr) {
    return absl::OkStatus();
  }
  if (!split_logged_) {
    log::Info(
        "splitting the Postgres transaction committing at {} over several Kafka transactions: "
        "its records have kept one open for [relay] transaction_split_ms = {} ms; a "
        "read_committed consumer sees its events in parts from now on",
        progress.commit_lsn.ToString(), ctx_.config.relay.transaction_split_ms);
    split_logged_ = true;
  }
  return Close(progress);
}

absl::Status SlotStream::CommitTransaction() {
  if (auto s = FinishCommit(/*wait=*/true); !s.ok()) return s;
  if (changes_.InTransaction()) return absl::OkStatus();
  split_logged_ = false;
  if (auto s = Close({}); !s.ok()) return s;
  return FinishCommit(/*wait=*/true);
}

absl::Status SlotStream::Close(position::PartialTransaction partial) {
  if (!publisher_.transaction_open()) return absl::OkStatus();
  const Lsn lsn = tracker_.last_commit_lsn();
  std::optional<position::PositionRecord> record;
  if (ctx_.positions != nullptr) {
    // Inside a split transaction Kafka has every transaction whose commit starts before it,
    // even when none ended since the slot was created.
    record = ctx_.positions->Next(
        partial.commit_lsn.IsValid() ? std::max(lsn, partial.commit_lsn) : lsn, partial);
    // Without its position record a transaction could be published again after a crash.
    if (!record) {
      return Blame(FailureSide::kKafka,
                   absl::UnavailableError(Concat("no position record can be written to ",
                                                 ctx_.positions->topic(),
                                                 " (see the warning above); retrying")));
    }
  }
  std::optional<Publisher::ControlRecord> control;
  const std::string value = record ? position::EncodeRecord(*record) : std::string();
  if (record) {
    control.emplace(Publisher::ControlRecord{
        .topic = ctx_.positions->topic(), .key = record->slot, .value = value});
  }
  if (auto s = publisher_.CloseTransaction(control); !s.ok()) return Blame(FailureSide::kKafka, s);
  closed_.emplace(ClosedTransaction{.lsn = lsn, .record = std::move(record)});
  return FinishCommit(/*wait=*/false);
}

absl::Status SlotStream::FinishCommit(bool wait) {
  if (!closed_ || (!wait && !publisher_.CommitReady())) return absl::OkStatus();
  if (auto s = publisher_.CommitClosedTransaction(); !s.ok()) {
    return Blame(FailureSide::kKafka, s);
  }
  committed_.Committed(closed_->lsn);
  if (closed_->record) ctx_.positions->Written(*closed_->record);
  closed_.reset();
  return absl::OkStatus();
}

void SlotStream::WritePositionIfDue(std::chrono::steady_clock::time_point now) {
  // exactly_once: each transaction carries its own (CommitTransaction).
  if (ctx_.positions == nullptr || publisher_.transactional() || now < next_position_) return;
  WritePosition();
  next_position_ = now + (position_written_ ? ctx_.positions->interval() : kFirstPositionRetry);
}

void SlotStream::WritePosition() {
  if (ctx_.positions == nullptr) return;
  const auto record = ctx_.positions->Next(session_->confirmable_lsn());
  if (!record) return;
  const std::string value = position::EncodeRecord(*record);
  // A full queue skips this write; the next one carries the newer position anyway.
  if (!publisher_.PublishControl(ctx_.positions->topic(), record->slot, value).ok()) return;
  ctx_.positions->Written(*record);
  position_written_ = true;
  position_lsn_ = record->lsn;
}
}  // namespace outboxd::relay
