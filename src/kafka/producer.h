#pragma once
// RAII over an idempotent librdkafka producer whose events are served on the loop thread.

#include <librdkafka/rdkafka.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace outboxd::kafka {

struct Header {
  std::string_view name;
  std::optional<std::string_view> value;  // nullopt = null header value
};

// One record to produce. Views need only live for the Produce call (librdkafka copies).
struct Record {
  const std::string& topic;  // A std::string so librdkafka gets a C string without a copy.
  std::optional<std::string_view> key;
  std::optional<std::string_view> value;  // nullopt = null value (tombstone)
  std::span<const Header> headers;
};

// What a failed delivery means for the relay (DESIGN.md invariants 6 and 7).
enum class FailureKind {
  kRecordRejected,  // This record can never be accepted: route it to the dead-letter topic.
  kRestart,         // Anything else: tear down and replay from the confirmed LSN.
};
FailureKind ClassifyDeliveryError(rd_kafka_resp_err_t err);

// What to tell the operator when librdkafka's error callback reports `err` with `reason`: the
// message naming the cause and the fix when `err` means the client cannot authenticate or
// set up TLS with the broker (a configuration problem no retry will fix), nullopt otherwise.
std::optional<std::string> AuthenticationErrorMessage(rd_kafka_resp_err_t err,
                                                      std::string_view reason);

// Receives delivery reports. Called only inside Producer::Poll, on the loop thread.
class DeliveryHandler {
 public:
  virtual ~DeliveryHandler() = default;
  virtual void OnDelivered(uint64_t tag) = 0;
  // `message` (topic, key, value, headers) is valid only during the call.
  virtual void OnFailed(uint64_t tag, rd_kafka_resp_err_t err,
                        const rd_kafka_message_t& message) = 0;
};

// Defaults outboxd applies before the user's properties (DESIGN.md section 4).
std::vector<std::pair<std::string, std::string>> DefaultProducerProperties();

class Producer {
 public:
  // Builds a producer from the defaults then `properties`. InvalidArgument names an unknown
  // or invalid property, or one that would break ordering/durability (idempotence, acks).
  // `handler` must outlive the Producer.
  static absl::StatusOr<std::unique_ptr<Producer>> Create(
      const std::vector<std::pair<std::string, std::string>>& properties, DeliveryHandler& handler);
  ~Producer();
  Producer(const Producer&) = delete;
  Producer& operator=(const Producer&) = delete;

  // Hands one record to librdkafka, tagged with `tag` for its delivery report.
  // ResourceExhausted: the local queue is full (backpressure: Poll, then retry).
  // InvalidArgument: this record can never be produced (dead-letter it).
  // Unavailable: the producer is unusable (restart).
  absl::Status Produce(const Record& record, uint64_t tag);

  // File descriptor that becomes readable when events (delivery reports, errors) are queued.
  int event_fd() const { return event_pipe_[0]; }
  // Serves queued events without blocking; delivery callbacks run here.
  void Poll();
  // Waits up to `timeout_ms` for all queued records to be delivered; true when none remain.
  bool Flush(int timeout_ms);
  // Records queued or in flight inside librdkafka.
  int OutstandingRecords() const { return rd_kafka_outq_len(rk_.get()); }
  // Set when librdkafka raised a fatal error (e.g. idempotence broken): restart.
  const std::optional<std::string>& fatal_error() const { return fatal_error_; }
  // Set (and kept) once a broker refused authentication or TLS failed (bad security.protocol,
  // sasl.* or ssl.* settings): permanent, so the relay should stop rather than retry. The
  // text names the cause and the fix. Updated inside Poll, on the loop thread.
  const std::optional<std::string>& auth_error() const { return auth_error_; }
  // True while every broker is unreachable, as last reported by librdkafka.
  bool brokers_down() const { return brokers_down_; }

 private:
  Producer(DeliveryHandler& handler) : handler_(handler) {}
  static void DeliveryReport(rd_kafka_t* rk, const rd_kafka_message_t* message, void* opaque);
  // Runs on librdkafka's threads; log::Write is safe there.
  static void LogCallback(const rd_kafka_t* rk, int level, const char* facility,
                          const char* message);
  static void ErrorCallback(rd_kafka_t* rk, int err, const char* reason, void* opaque);
  void OnError(rd_kafka_resp_err_t err, const char* reason);

  struct RdKafkaDeleter {
    void operator()(rd_kafka_t* rk) const { rd_kafka_destroy(rk); }
  };
  DeliveryHandler& handler_;
  std::unique_ptr<rd_kafka_t, RdKafkaDeleter> rk_;
  int event_pipe_[2] = {-1, -1};
  std::optional<std::string> fatal_error_;
  std::optional<std::string> auth_error_;
  bool brokers_down_ = false;
};

}  // namespace outboxd::kafka
