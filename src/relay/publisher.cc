#include "relay/publisher.h"

#include <algorithm>

#include "common/log.h"
#include "common/status.h"
#include "common/strings.h"

namespace outboxd::relay {

absl::StatusOr<std::unique_ptr<Publisher>> Publisher::Create(const ProducerFactory& factory,
                                                             const config::Config& config,
                                                             const Clock& clock,
                                                             metrics::RelayMetrics& metrics,
                                                             const PublisherOptions& options) {
  std::unique_ptr<Publisher> publisher(new Publisher(config, clock, metrics));
  if (publisher->transactional_) publisher->late_rejections_ = options.late_rejections;
  auto producer = factory(*publisher, options.slot_index);
  if (!producer.ok()) return producer.status();
  publisher->producer_ = std::move(*producer);
  if (publisher->transactional_) {
    if (auto s = publisher->InitTransactions(options.wait_or_stop); !s.ok()) return s;
  }
  return publisher;
}

// init_transactions waits for a transaction coordinator as long as Kafka is unreachable. Short
// attempts, each resumed by the next, let the producer's events be served in between: the
// "Kafka is unreachable" line comes at once instead of after the 30 s, and a stop is heard.
absl::Status Publisher::InitTransactions(const StopAwareWait& wait_or_stop) {
  using std::chrono::milliseconds;
  const auto started = clock_.SteadyNow();
  absl::Status status;
  for (int attempt = 0; attempt < kTransactionCallTimeoutMs / kInitTransactionsStepMs; ++attempt) {
    const auto attempt_started = clock_.SteadyNow();
    status = producer_->InitTransactions(kInitTransactionsStepMs);
    if (!absl::IsDeadlineExceeded(status)) break;
    producer_->Poll(/*event_fd_readable=*/false);
    const auto rest =
        milliseconds(kInitTransactionsStepMs) -
        std::chrono::duration_cast<milliseconds>(clock_.SteadyNow() - attempt_started);
    if (wait_or_stop && wait_or_stop(std::max(rest, milliseconds(0)))) {
      return absl::CancelledError(
          "stopped while waiting for Kafka's transaction coordinator; nothing was published");
    }
  }
  if (absl::IsDeadlineExceeded(status)) {
    return absl::UnavailableError(
        Concat(MessageOf(status), " within ", kTransactionCallTimeoutMs / 1000, " s"));
  }
  if (!status.ok()) return status;
  log::Info(
      "Kafka transactions initialized in {} ms (earlier owners of the transactional.id "
      "are fenced, their open transaction aborted)",
      std::chrono::duration_cast<milliseconds>(clock_.SteadyNow() - started).count());
  return absl::OkStatus();
}

Publisher::Publisher(const config::Config& config, const Clock& clock,
                     metrics::RelayMetrics& metrics)
    : config_(config.outbox),
      relay_config_(config.relay),
      clock_(clock),
      metrics_(metrics),
      transactional_(config.relay.delivery == config::Delivery::kExactlyOnce) {}

StreamId Publisher::Attach(AckTracker& tracker) {
  const StreamId id = next_stream_++;
  streams_.emplace(id, &tracker);
  return id;
}

void Publisher::Detach(StreamId stream) {
  streams_.erase(stream);
  // Its records in the open transaction must never be committed: its successor replays them.
  // Aborting asks the coordinator, so a producer that another instance fenced learns it here
  // (and stops) instead of taking the transactional.id back with a new producer.
  // A failed producer is rebuilt, and the rebuilt one's InitTransactions aborts it instead.
  if (transaction_.open) {
    first_live_seq_ = next_record_seq_;  // Reports on the aborted records are ignored.
    if (status().ok()) {
      AbandonTransaction(kAbortedByPostgres);
      // abort_transaction purges what is still queued, and a purged batch that already had
      // its sequence numbers made the broker refuse the next transaction (skipped sequence
      // numbers: a rebuilt producer, in 6 of 38 walsender terminations). Its records are
      // invisible to read_committed consumers once aborted, so let them land first.
      producer_->Flush(kAbortFlushTimeoutMs);
      if (auto s = producer_->AbortTransaction(kTransactionCallTimeoutMs); !s.ok()) Fail(s);
    } else {
      AbandonTransaction(producer_->fenced() || absl::IsAlreadyExists(failure_) ? kAbortedFenced
                                                                                : kAbortedByKafka);
    }
  }
  std::erase_if(dead_letters_,
                [stream](const DeadLetter& dl) { return dl.origin.stream == stream; });
}

AckTracker* Publisher::TrackerOf(StreamId stream) const {
  auto it = streams_.find(stream);
  return it == streams_.end() ? nullptr : it->second;
}

bool Publisher::dead_letters_waiting(StreamId stream) const {
  return std::any_of(dead_letters_.begin(), dead_letters_.end(),
                     [stream](const DeadLetter& dl) { return dl.origin.stream == stream; });
}

absl::Status Publisher::Publish(const outbox::OutboxEvent& event, const RecordOrigin& origin) {
  if (late_rejections_ != nullptr) {
    if (const std::string* reason = late_rejections_->RecordRejected(origin.lsn)) {
      return absl::InvalidArgumentError(*reason);
    }
  }
  header_scratch_.assign(event.headers.begin(), event.headers.end());
  absl::Status s = Produce({.topic = event.topic,
                            .key = event.key,
                            .value = event.value,
                            .headers = header_scratch_,
                            .partition = event.partition,
                            .timestamp_ms = event.timestamp_ms},
                           origin);
  if (s.ok()) TrackerOf(origin.stream)->AddRecord();
  return s;
}

absl::Status Publisher::PublishControl(const std::string& topic, std::string_view key,
                                       std::string_view value) {
  // Stream 0 is never attached: its reports reach no tracker.
  return Produce({.topic = topic, .key = key, .value = value, .headers = {}},
                 RecordOrigin{.stream = 0,
                              .tx = 0,
                              .lsn = Lsn(),
                              .xid = Xid{0},
                              .relation = RelationId{0},
                              .table = {},
                              .commit_time_us = 0,
                              .received = clock_.SteadyNow()},
                 /*control=*/true);
}

void Publisher::QueueDeadLetter(DeadLetter dead_letter, std::string_view reason) {
  TrackerOf(dead_letter.origin.stream)->AddRecord();
  metrics_.dead_lettered.With(reason).Add();
  dead_letters_.push_back(std::move(dead_letter));
}

absl::Status Publisher::ProduceDeadLetters() {
  while (!dead_letters_.empty()) {
    DeadLetter& dl = dead_letters_.front();
    if (late_rejections_ != nullptr && late_rejections_->DeadLetterRejected(dl.origin.lsn) &&
        dl.DropValue()) {
      log::Warn(
          "Kafka rejected the dead letter of the row at WAL {} before; sending it without "
          "its value",
          dl.origin.lsn.ToString());
    }
    absl::Status s = Produce(dl.AsRecord(config_.dead_letter_topic, header_scratch_), dl.origin);
    if (absl::IsResourceExhausted(s)) return absl::OkStatus();
    if (absl::IsInvalidArgument(s) && dl.DropValue()) {
      log::Warn("{}; dead-lettering the row without its value", MessageOf(s));
      continue;
    }
    if (absl::IsInvalidArgument(s)) {
      // Replaying would hit the same refusal forever: stop, with the row still unconfirmed.
      return absl::FailedPreconditionError(Concat(
          "the dead-letter topic ", config_.dead_letter_topic,
          " refuses even a record without value (", MessageOf(s),
          "); nothing was lost, the slot stays before the row at WAL ", dl.origin.lsn.ToString(),
          "; fix the topic (create it, raise its max.message.bytes, check its policies) or set "
          "[outbox] dead_letter_topic, then restart"));
    }
    if (!s.ok()) return s;
    dead_letters_.pop_front();
  }
  return absl::OkStatus();
}

Publisher::TopicCounters* Publisher::CountersFor(const std::string& topic) {
  auto it = topic_counters_.find(topic);
  if (it == topic_counters_.end()) {
    it = topic_counters_
             .emplace(topic, TopicCounters{.events = &metrics_.events_published.With(topic),
                                           .bytes = &metrics_.bytes_published.With(topic)})
             .first;
  }
  return &it->second;
}

absl::Status Publisher::Produce(const kafka::Record& record, const RecordOrigin& origin,
                                bool control) {
  if (auto s = EnsureTransaction(); !s.ok()) return s;
  const uint64_t seq = next_record_seq_++;
  absl::Status s = producer_->Produce(record, seq);
  if (!s.ok()) return s;
  const uint64_t bytes =
      (record.key ? record.key->size() : 0) + (record.value ? record.value->size() : 0);
  if (transactional_) {
    ++transaction_.records;
    transaction_.bytes += bytes;
  }
  const auto now = clock_.SteadyNow();
  metrics_.stages.produced.Observe(std::chrono::duration<double>(now - origin.received).count());
  in_flight_.emplace(seq, InFlight{.origin = origin,
                                   .produced = now,
                                   .counters = control ? nullptr : CountersFor(record.topic),
                                   .bytes = bytes});
  metrics_.events_in_flight.Set(static_cast<double>(in_flight_.size()));
  return s;
}

void Publisher::Poll(bool event_fd_readable) {
  producer_->Poll(event_fd_readable);
  const bool down = producer_->brokers_down();
  if (brokers_were_down_ && !down) metrics_.reconnects.With("kafka").Add();
  brokers_were_down_ = down;
  const uint64_t retries = producer_->retries();
  if (retries > retries_seen_) metrics_.kafka_retries.Add(retries - retries_seen_);
  retries_seen_ = std::max(retries_seen_, retries);
  metrics_.events_in_flight.Set(static_cast<double>(in_flight_.size()));
}

void Publisher::Fail(absl::Status status) {
  if (failure_.ok()) failure_ = std::move(status);
}

absl::Status Publisher::status() const {
  const auto& fatal = producer_->fatal_error();
  // Fencing outranks the failures it caused (a purged record): rebuilding would fence back.
  if (fatal && producer_->fenced()) {
    return absl::AlreadyExistsError(kafka::ProducerFencedMessage(*fatal));
  }
  if (!failure_.ok()) return failure_;
  if (fatal) return absl::UnavailableError(Concat("Kafka producer failed: ", *fatal));
  // Wrong credentials or TLS settings do not heal by retrying: exit so the operator sees it.
  if (const auto& op = producer_->operator_error()) return absl::PermissionDeniedError(*op);
  return absl::OkStatus();
}

}  // namespace outboxd::relay
