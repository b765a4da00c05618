// The publisher's delivery reports (run inside Producer::Poll on the loop thread): an
// acknowledged record counts for its stream's tracker and metrics; a failed one is
// dead-lettered, dropped (a control record the next one supersedes), or fails the producer
// with the status that says how the run restarts.

#include <algorithm>

#include "common/log.h"
#include "common/strings.h"
#include "relay/publisher.h"

namespace outboxd::relay {

void Publisher::OnDelivered(uint64_t tag) {
  auto node = in_flight_.extract(tag);
  if (tag < first_live_seq_) return;  // Of an aborted transaction.
  if (!node) {
    // Cannot happen unless librdkafka reports a record twice; replaying is the safe answer.
    return Fail(absl::UnavailableError(Concat("delivery report for unknown record ", tag)));
  }
  const InFlight& record = node.mapped();
  // A detached stream's successor replays this record from the slot's confirmed LSN.
  if (AckTracker* tracker = TrackerOf(record.origin.stream)) tracker->Acknowledge(record.origin.tx);
  metrics_.stages.acked.Observe(
      std::chrono::duration<double>(clock_.SteadyNow() - record.produced).count());
  if (record.counters == nullptr) return;  // A control record: no event.
  record.counters->events->Add();
  record.counters->bytes->Add(record.bytes);
  if (record.origin.commit_time_us > 0) {
    const int64_t age_us = clock_.PostgresNowMicros() - record.origin.commit_time_us;
    metrics_.commit_to_ack_seconds.Observe(static_cast<double>(std::max<int64_t>(age_us, 0)) / 1e6);
  }
}

void Publisher::OnFailed(uint64_t tag, const kafka::DeliveryFailure& failure) {
  auto node = in_flight_.extract(tag);
  if (tag < first_live_seq_ && failure.verdict != kafka::ErrorVerdict::kFenced) return;
  if (!node)
    return Fail(absl::UnavailableError(Concat("delivery report for unknown record ", tag)));
  const RecordOrigin origin = node.mapped().origin;
  metrics_.delivery_errors.With(failure.code).Add();
  if (node.mapped().counters == nullptr && failure.verdict != kafka::ErrorVerdict::kFenced) {
    // The next position record supersedes this one; the events are not held up for it.
    log::Warn("could not write a record to {} ({}); the next one follows when the position moves",
              failure.topic, failure.reason);
    return;
  }
  const bool was_dead_letter = failure.topic == config_.dead_letter_topic;
  switch (failure.verdict) {
    case kafka::ErrorVerdict::kRecordRejected: {
      if (TrackerOf(origin.stream) == nullptr) return;  // Its stream replays it (see Detach).
      if (late_rejections_ != nullptr && !late_rejections_->DeadLetterRejected(origin.lsn)) {
        // The transaction needs an abort now: the replay dead-letters the row instead.
        late_rejections_->Remember(origin.lsn, failure.reason, was_dead_letter);
        return Fail(absl::UnavailableError(
            Concat("Kafka rejected the record of the row at WAL ", origin.lsn.ToString(), " for ",
                   failure.topic, " (", failure.reason,
                   "); its Kafka transaction is abandoned and the replay sends the row to ",
                   config_.dead_letter_topic, was_dead_letter ? " without its value" : "")));
      }
      DeadLetter dl = DeadLetter::FromReport(failure, was_dead_letter, origin);
      // A refused dead-letter record gets one more try without its value.
      if (!was_dead_letter || dl.DropValue()) {
        log::Warn("Kafka refused a record for {} ({}); sending it to {}{}", failure.topic,
                  failure.reason, config_.dead_letter_topic,
                  was_dead_letter ? " without its value" : "");
        if (!was_dead_letter) metrics_.dead_lettered.With(kBrokerRejected).Add();
        dead_letters_.push_back(std::move(dl));  // Stands in for the refused record.
        return;
      }
      return Fail(absl::FailedPreconditionError(Concat(
          "the dead-letter topic ", config_.dead_letter_topic,
          " refuses even a record without value (", failure.reason,
          "); nothing was lost, the slot stays before the row at WAL ", origin.lsn.ToString(),
          "; fix the topic (max.message.bytes, policies) or set [outbox] "
          "dead_letter_topic, then restart")));
    }
    case kafka::ErrorVerdict::kOperatorError:
      // Nothing is dead-lettered: every record would fail the same way.
      return Fail(absl::PermissionDeniedError(
          Concat("Kafka refused a record for ", failure.topic, " (", failure.reason,
                 "); nothing was lost, the slot stays before it; ", failure.operator_fix)));
    case kafka::ErrorVerdict::kFenced:
      return Fail(absl::AlreadyExistsError(kafka::ProducerFencedMessage(failure.reason)));
    case kafka::ErrorVerdict::kAbortTransaction:
      return Fail(
          absl::UnavailableError(Concat("the Kafka transaction must be aborted (", failure.reason,
                                        "); replaying from the confirmed LSN")));
    case kafka::ErrorVerdict::kReplay:
      // Left unacknowledged: the confirmed LSN stays before it and the replay re-sends it.
      return Fail(
          absl::UnavailableError(Concat("delivery to ", failure.topic, " failed (", failure.reason,
                                        "); replaying from the confirmed LSN")));
  }
}

}  // namespace outboxd::relay
