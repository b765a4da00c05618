// Publisher's Kafka transactions ([relay] delivery = "exactly_once"): begun by the first record
// after a commit, committed by the stream at a Postgres commit once due, with the position record.

#include "common/status.h"
#include "relay/publisher.h"

namespace outboxd::relay {

absl::Status Publisher::EnsureTransaction() {
  if (transaction_.closing) {
    return absl::ResourceExhaustedError("the Kafka transaction is being committed");
  }
  if (!transactional_ || transaction_.open) return absl::OkStatus();
  if (!failure_.ok()) return failure_;  // Nothing more goes into a failed producer.
  if (auto s = producer_->BeginTransaction(); !s.ok()) {
    Fail(s);
    return s;
  }
  transaction_ = {.open = true,
                  .closing = false,
                  .closed = {},
                  .records = 0,
                  .bytes = 0,
                  .begun = clock_.SteadyNow(),
                  .first_acked = false};
  return absl::OkStatus();
}

void Publisher::AbandonTransaction(std::string_view cause) {
  transaction_.open = false;
  transaction_.closing = false;
  metrics_.kafka_transactions_aborted.With(cause).Add();
}

void Publisher::TimeTransactionAck() {
  const bool last = transaction_.closing && in_flight_.empty();
  // Most acknowledgements are neither the first nor the last: no clock read for them.
  if (!transaction_.open || (transaction_.first_acked && !last)) return;
  const auto now = clock_.SteadyNow();
  if (!transaction_.first_acked) {
    transaction_.first_acked = true;
    metrics_.transaction_phases.first_ack.Observe(
        std::chrono::duration<double>(now - transaction_.begun).count());
  }
  if (last) {
    metrics_.transaction_phases.last_ack.Observe(
        std::chrono::duration<double>(now - transaction_.closed).count());
  }
}

bool Publisher::TransactionDue() const {
  return transaction_.open &&
         (transaction_.records >= static_cast<uint64_t>(relay_config_.transaction_max_events) ||
          transaction_.bytes >= static_cast<uint64_t>(relay_config_.transaction_max_bytes) ||
          clock_.SteadyNow() >= transaction_due_at());
}

bool Publisher::TransactionMustSplit() const {
  return transaction_.open &&
         clock_.SteadyNow() >=
             transaction_.begun + std::chrono::milliseconds(relay_config_.transaction_split_ms);
}

std::chrono::steady_clock::time_point Publisher::transaction_due_at() const {
  return transaction_.begun + std::chrono::milliseconds(relay_config_.transaction_max_ms);
}

absl::Status Publisher::CloseTransaction(const std::optional<ControlRecord>& position) {
  if (!transaction_.open || transaction_.closing) return absl::OkStatus();
  if (position) {
    absl::Status s = PublishControl(position->topic, position->key, position->value);
    if (absl::IsResourceExhausted(s)) {
      // The queue is full of this transaction's records; the commit waits for them anyway.
      producer_->Flush(kTransactionCallTimeoutMs);
      s = PublishControl(position->topic, position->key, position->value);
    }
    if (!s.ok()) {
      if (absl::IsResourceExhausted(s)) s = absl::UnavailableError(s.message());
      Fail(s);
      AbandonTransaction(absl::IsAlreadyExists(s) ? kAbortedFenced : kAbortedByKafka);
      return s;
    }
  }
  transaction_.closing = true;
  transaction_.closed = clock_.SteadyNow();
  return absl::OkStatus();
}

absl::Status Publisher::CommitClosedTransaction() {
  if (!transaction_.closing) {
    return absl::UnavailableError("the closed Kafka transaction was abandoned before its commit");
  }
  const auto call_start = clock_.SteadyNow();
  absl::Status s = producer_->CommitTransaction(kTransactionCallTimeoutMs);
  const auto now = clock_.SteadyNow();
  // From the close: the wait for the last acknowledgements is part of what a commit costs.
  metrics_.kafka_commit_seconds.Observe(
      std::chrono::duration<double>(now - transaction_.closed).count());
  metrics_.transaction_phases.commit_call.Observe(
      std::chrono::duration<double>(now - call_start).count());
  if (!s.ok()) {
    if (absl::IsResourceExhausted(s)) s = absl::UnavailableError(s.message());
    Fail(s);
    // The rebuilt producer's InitTransactions aborts it.
    AbandonTransaction(absl::IsAlreadyExists(s) ? kAbortedFenced : kAbortedByKafka);
    return s;
  }
  metrics_.kafka_transactions.Add();
  metrics_.kafka_transaction_records.Add(transaction_.records);
  transaction_.open = false;
  transaction_.closing = false;
  return absl::OkStatus();
}

}  // namespace outboxd::relay
