#pragma once
// The Kafka side of the relay, one per producer and shared by every slot's stream: the only
// code that hands records to the producer. It owns the records in flight (by the sequence
// number in their opaque) and the dead-letter queue, and turns delivery reports into
// acknowledgements for the AckTracker of the stream each record came from (DESIGN.md
// invariants 1, 6 and 7). It outlives the streams: a stream restarted after a Postgres-side
// failure detaches and attaches again; a producer failure rebuilds the publisher and all.

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/status/statusor.h"
#include "common/clock.h"
#include "config/config.h"
#include "kafka/producer.h"
#include "metrics/metrics.h"
#include "outbox/mapper.h"
#include "relay/ack_tracker.h"
#include "relay/dead_letter.h"
#include "relay/late_rejections.h"
#include "relay/producer_factory.h"
#include "relay/record_origin.h"

namespace outboxd::relay {

// Dead-letter reasons, as the outboxd_dead_lettered_events_total label spells them.
inline constexpr std::string_view kUnmappable = "unmappable";             // Mapper refused the row.
inline constexpr std::string_view kProducerRefused = "producer_refused";  // e.g. too large.
inline constexpr std::string_view kBrokerRejected = "broker_rejected";    // Late rejection.

// Sleeps up to `delay` unless a stop is requested first; true when asked to stop.
using StopAwareWait = std::function<bool(std::chrono::milliseconds delay)>;

struct PublisherOptions {
  // Passed to the ProducerFactory: the parallel slot this publisher serves alone, or 0.
  int slot_index = 0;
  // Transactional publishers remember here the rows whose records the broker rejected, and
  // dead-letter them when they come again; nullptr: not remembered.
  LateRejections* late_rejections = nullptr;
  // While no transaction coordinator answers, InitTransactions is retried for up to 30 s,
  // waiting with this between attempts (none: at once); Create says Cancelled on a stop.
  StopAwareWait wait_or_stop;
};

// Runs on the loop thread; delivery callbacks run inside Poll and Flush.
class Publisher final : private kafka::DeliveryHandler {
 public:
  // Everything passed by reference must outlive the publisher.
  // A transactional one (config.relay.delivery) runs InitTransactions first, which fences the
  // previous owner of the transactional.id and aborts what it left open.
  static absl::StatusOr<std::unique_ptr<Publisher>> Create(const ProducerFactory& factory,
                                                           const config::Config& config,
                                                           const Clock& clock,
                                                           metrics::RelayMetrics& metrics,
                                                           const PublisherOptions& options = {});

  // Attaches one stream: records whose origin names the returned id count in `tracker` and
  // their acknowledgements go to it. `tracker` must stay valid until Detach().
  StreamId Attach(AckTracker& tracker);
  // Forgets the stream: its queued dead letters are dropped, and reports on its records still
  // in flight only count in metrics (the stream's successor replays them from the slot's
  // confirmed LSN).
  void Detach(StreamId stream);

  // Hands `event` to Kafka as a record of the open transaction of origin.stream, counting it in
  // that stream's tracker. ResourceExhausted: Kafka's queue is full, call again later with the
  // same event. InvalidArgument: the producer refuses this record (dead-letter the row), or
  // the broker rejected it before (RejectedLate). Anything else ends the run.
  absl::Status Publish(const outbox::OutboxEvent& event, const RecordOrigin& origin);
  // The broker rejected the record of this row in an abandoned transaction (exactly_once).
  bool RejectedLate(const RecordOrigin& origin) const {
    return late_rejections_ != nullptr && late_rejections_->RecordRejected(origin.lsn) != nullptr;
  }
  // Hands a record of outboxd's own state (the position record) to Kafka: it belongs to no
  // stream's transaction, and a failed delivery is logged, never dead-lettered or replayed.
  // ResourceExhausted: Kafka's queue is full, try again later.
  absl::Status PublishControl(const std::string& topic, std::string_view key,
                              std::string_view value);
  // Queues the dead-letter record for a row of the open transaction of its origin's stream; it
  // stands for the row in the transaction's count from now on. Produce them with
  // ProduceDeadLetters().
  void QueueDeadLetter(DeadLetter dead_letter, std::string_view reason);
  // Produces queued dead letters, in order, until done or Kafka's queue is full.
  // FailedPrecondition when the dead-letter topic refuses even a record without value.
  absl::Status ProduceDeadLetters();
  bool dead_letters_waiting() const { return !dead_letters_.empty(); }
  // True while a dead letter of `stream` waits: that stream reads no further until it is out.
  bool dead_letters_waiting(StreamId stream) const;

  int event_fd() const { return producer_->event_fd(); }
  // Serves delivery reports and tracks whether the brokers are reachable; see
  // kafka::Producer::Poll for `event_fd_readable`.
  void Poll(bool event_fd_readable);
  // Waits up to `timeout_ms` for deliveries; true when none remain.
  bool Flush(int timeout_ms) { return producer_->Flush(timeout_ms); }

  // delivery = "exactly_once": every record goes into the open Kafka transaction, begun by the
  // first record after a commit. The stream commits it at a Postgres commit once it is due.
  bool transactional() const { return transactional_; }
  bool transaction_open() const { return transaction_.open; }
  // The open transaction reached transaction_max_events or _bytes, or is open since `due_at()`.
  bool TransactionDue() const;
  std::chrono::steady_clock::time_point transaction_due_at() const;
  // The open transaction is open since transaction_split_ms: commit it even inside a Postgres
  // transaction, before the broker's transaction.timeout.ms aborts it.
  bool TransactionMustSplit() const;
  // A record of outboxd's own state: the position record.
  struct ControlRecord {
    const std::string& topic;
    std::string_view key;
    std::string_view value;
  };
  // Adds `position` to the open transaction and closes it: no record goes in until it is
  // committed (Publish and PublishControl answer ResourceExhausted). Committing waits for every
  // record of it to be acknowledged; CommitReady() says when that wait is over, so the loop
  // serves other work meanwhile instead of blocking in the commit.
  absl::Status CloseTransaction(const std::optional<ControlRecord>& position);
  bool CommitReady() const { return transaction_.closing && in_flight_.empty(); }
  // Commits the closed transaction, blocking until its records are acknowledged (at once when
  // CommitReady()) and the coordinator answered. Errors as kafka::Producer::CommitTransaction;
  // any error leaves the publisher failed (status()). Unavailable when no transaction is closed
  // (it was abandoned): the caller must not confirm what it held (invariant 1).
  absl::Status CommitClosedTransaction();

  // OK while the streams may go on. Unavailable: rebuild the producer and replay every stream
  // from its confirmed LSN (fatal producer error, failed delivery). PermissionDenied:
  // credentials or ACLs. FailedPrecondition: the dead-letter topic refuses records.
  absl::Status status() const;
  bool brokers_down() const { return producer_->brokers_down(); }
  uint64_t in_flight() const { return in_flight_.size(); }

 private:
  Publisher(const config::Config& config, const Clock& clock, metrics::RelayMetrics& metrics);
  // The exported counters of one topic, looked up once per topic.
  struct TopicCounters {
    metrics::Counter* events;
    metrics::Counter* bytes;
  };
  struct InFlight {
    RecordOrigin origin;
    std::chrono::steady_clock::time_point produced;  // Handed to librdkafka.
    TopicCounters* counters = nullptr;               // nullptr for control records.
    uint64_t bytes = 0;                              // Key and value.
  };
  TopicCounters* CountersFor(const std::string& topic);
  absl::Status Produce(const kafka::Record& record, const RecordOrigin& origin,
                       bool control = false);
  // kafka::DeliveryHandler.
  void OnDelivered(uint64_t tag) override;
  void OnFailed(uint64_t tag, const kafka::DeliveryFailure& failure) override;
  void Fail(absl::Status status);
  // How long a transactional call may block the loop; the broker's own transaction timeout
  // (transaction.timeout.ms, 60 s by default) is longer. Past it the producer is rebuilt:
  // without KIP-890 a commit retried after a timeout is ambiguous.
  static constexpr int kTransactionCallTimeoutMs = 30'000;
  // How long an abort after a Postgres-side failure waits for the records in flight.
  static constexpr int kAbortFlushTimeoutMs = 5'000;
  // One attempt of InitTransactions: how soon an unreachable Kafka is logged and a stop heard.
  static constexpr int kInitTransactionsStepMs = 1'000;
  // Fences the previous owner of the transactional.id (see Create).
  absl::Status InitTransactions(const StopAwareWait& wait_or_stop);
  // Begins a Kafka transaction unless one is open (transactional publishers only).
  absl::Status EnsureTransaction();
  // The open transaction will never commit; counts it under `cause`.
  void AbandonTransaction(std::string_view cause);
  // A record of the open transaction was acknowledged: times its first acknowledgement, and the
  // last one once it is closed (RelayMetrics::transaction_phases).
  void TimeTransactionAck();
  // outboxd_kafka_transactions_aborted_total's causes.
  static constexpr std::string_view kAbortedByPostgres = "postgres";
  static constexpr std::string_view kAbortedByKafka = "kafka";
  static constexpr std::string_view kAbortedFenced = "fenced";

  // The tracker of an attached stream; nullptr once it detached.
  AckTracker* TrackerOf(StreamId stream) const;

  const config::OutboxConfig& config_;
  const config::RelayConfig& relay_config_;
  const Clock& clock_;
  metrics::RelayMetrics& metrics_;
  std::unique_ptr<kafka::Producer> producer_;

  std::vector<Header> header_scratch_;   // Views for the record being produced.
  std::deque<DeadLetter> dead_letters_;  // Waiting for room in Kafka's queue.
  // Records handed to Kafka and not yet reported on; bounded by the producer's queue size.
  absl::flat_hash_map<uint64_t, InFlight> in_flight_;
  absl::node_hash_map<std::string, TopicCounters> topic_counters_;  // Stable addresses.
  absl::flat_hash_map<StreamId, AckTracker*> streams_;              // Attached streams.
  StreamId next_stream_ = 1;
  uint64_t next_record_seq_ = 0;
  uint64_t first_live_seq_ = 0;  // Records before it belong to an aborted transaction.
  absl::Status failure_;         // First delivery failure that ends the session.
  const bool transactional_;
  LateRejections* late_rejections_ = nullptr;  // exactly_once only; outlives the publisher.
  struct OpenTransaction {
    bool open = false;
    bool closing = false;  // CloseTransaction() ran: its commit is under way.
    std::chrono::steady_clock::time_point closed;
    uint64_t records = 0;
    uint64_t bytes = 0;
    std::chrono::steady_clock::time_point begun;
    bool first_acked = false;  // Its first delivery report came (transaction_phases).
  } transaction_;
  bool brokers_were_down_ = false;
  uint64_t retries_seen_ = 0;  // producer_->retries() already added to the metric.
};

}  // namespace outboxd::relay
