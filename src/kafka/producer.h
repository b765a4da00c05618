#pragma once
// Producing records to Kafka: the interface the relay's publisher uses, and its librdkafka
// implementation (an idempotent producer whose events are served on the loop thread).
// librdkafka's types stay inside src/kafka: delivery reports arrive already translated.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/record.h"
#include "kafka/error_verdict.h"

namespace outboxd::kafka {

// One record to produce. Views need only live for the Produce call (librdkafka copies).
struct Record {
  const std::string& topic;  // A std::string so librdkafka gets a C string without a copy.
  std::optional<std::string_view> key;
  std::optional<std::string_view> value;  // nullopt = null value (tombstone)
  std::span<const Header> headers;
  int32_t partition = -1;    // -1 = the partitioner (murmur2 of the key bytes) chooses.
  int64_t timestamp_ms = 0;  // CreateTime; 0 = now.
};

// A delivery that failed, translated from librdkafka's report. Views are valid only during
// the DeliveryHandler call.
struct DeliveryFailure {
  ErrorVerdict verdict = ErrorVerdict::kReplay;
  std::string_view code;     // librdkafka's error name, e.g. "MSG_SIZE_TOO_LARGE"; a metric label.
  std::string reason;        // DescribeError(): name and description.
  std::string operator_fix;  // OperatorFix() for kOperatorError, empty otherwise.
  std::string_view topic;
  std::optional<std::string_view> key;
  std::optional<std::string_view> value;
  std::vector<Header> headers;
};

// Receives delivery reports. Called only inside Producer::Poll or Flush, on the loop thread.
class DeliveryHandler {
 public:
  virtual ~DeliveryHandler() = default;
  virtual void OnDelivered(uint64_t tag) = 0;
  virtual void OnFailed(uint64_t tag, const DeliveryFailure& failure) = 0;
};

class Producer {
 public:
  virtual ~Producer() = default;

  // Hands one record over, tagged with `tag` for its delivery report.
  // ResourceExhausted: the local queue is full (backpressure: Poll, then retry).
  // InvalidArgument: this record can never be produced (dead-letter it).
  // PermissionDenied: an operator error (credentials, ACLs); the message names the fix.
  // FailedPrecondition: this producer was fenced; another instance owns the slot (stop).
  // Unavailable: the producer is unusable (restart).
  virtual absl::Status Produce(const Record& record, uint64_t tag) = 0;
  // File descriptor that becomes readable when events (delivery reports, errors) are queued.
  virtual int event_fd() const = 0;
  // Serves queued events without blocking; delivery callbacks run here. `event_fd_readable`:
  // poll() reported event_fd() readable, so it must be emptied (otherwise reading it would
  // only cost a failing syscall).
  virtual void Poll(bool event_fd_readable) = 0;
  // Waits up to `timeout_ms` for queued records to be delivered, serving delivery callbacks;
  // true when none remain.
  virtual bool Flush(int timeout_ms) = 0;
  // Set when the producer can no longer be used (a fatal librdkafka error): restart.
  virtual const std::optional<std::string>& fatal_error() const = 0;
  // Set (and kept) once the broker refused authentication, TLS failed or the producer is not
  // authorized: permanent, so the relay should stop rather than retry. Names cause and fix.
  virtual const std::optional<std::string>& operator_error() const = 0;
  // True while every broker is unreachable, as last reported.
  virtual bool brokers_down() const = 0;
  // Requests re-sent to brokers since the producer started, as of the last statistics.
  virtual uint64_t retries() const = 0;
  // True once fatal_error() is a fence: another producer took this one's transactional.id.
  virtual bool fenced() const { return false; }

  // Kafka transactions, for a producer made by CreateTransactionalProducer. InitTransactions,
  // CommitTransaction and AbortTransaction block up to `timeout_ms`, serving delivery reports
  // meanwhile; BeginTransaction is local. Errors by kafka::ClassifyTransactionError:
  // AlreadyExists when fenced (another instance owns the transactional.id: stop, never fight
  // it back), PermissionDenied for credentials and ACLs, Unavailable for the rest (abortable
  // or fatal alike: rebuild the producer, whose InitTransactions aborts what was left open).
  // InitTransactions alone says DeadlineExceeded when no coordinator answered in time (Kafka
  // unreachable): calling it again resumes where it stopped.
  virtual absl::Status InitTransactions(int /*timeout_ms*/) { return NotTransactional(); }
  virtual absl::Status BeginTransaction() { return NotTransactional(); }
  virtual absl::Status CommitTransaction(int /*timeout_ms*/) { return NotTransactional(); }
  // Purges what is queued (failed reports follow) and aborts the open transaction.
  virtual absl::Status AbortTransaction(int /*timeout_ms*/) { return NotTransactional(); }

 private:
  static absl::Status NotTransactional() {
    return absl::FailedPreconditionError("not a transactional producer");
  }
};

// Defaults outboxd applies before the user's properties (DESIGN.md section 4).
std::vector<std::pair<std::string, std::string>> DefaultProducerProperties();

// Builds a librdkafka producer from the defaults then `properties`. InvalidArgument names an
// unknown or invalid property, or one that would break ordering/durability (idempotence,
// acks, local timeouts). `handler` must outlive the producer.
absl::StatusOr<std::unique_ptr<Producer>> CreateProducer(
    const std::vector<std::pair<std::string, std::string>>& properties, DeliveryHandler& handler);

// As CreateProducer, with `transactional_id` ([relay] delivery = "exactly_once"). Call
// InitTransactions before anything else.
absl::StatusOr<std::unique_ptr<Producer>> CreateTransactionalProducer(
    const std::vector<std::pair<std::string, std::string>>& properties,
    const std::string& transactional_id, DeliveryHandler& handler);

}  // namespace outboxd::kafka
