#pragma once
// The restart policy of one slot's stream: opens it, and after a Postgres-side failure that is
// worth retrying (Unavailable) closes it and opens a fresh one from the slot's confirmed LSN
// after an exponential backoff, while the other streams and the producer carry on.

#include <chrono>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "relay/context.h"
#include "relay/publisher.h"
#include "relay/slot_stream.h"

namespace outboxd::relay {

// Exponential backoff between attempts, reset after a long healthy run.
class Backoff {
 public:
  // The delay before the next attempt; doubles each call up to the maximum, starting afresh
  // when the run that just failed had been healthy since `started`.
  std::chrono::milliseconds Next(std::chrono::steady_clock::time_point started,
                                 std::chrono::steady_clock::time_point now);

 private:
  std::chrono::milliseconds next_ = std::chrono::milliseconds(500);
};

// Runs on the loop thread.
class StreamSupervisor {
 public:
  // `context`, `publisher` and `encoder` must outlive the supervisor.
  StreamSupervisor(RelayContext& context, Publisher& publisher, const outbox::Encoder& encoder,
                   std::string slot);

  // Opens the stream when none is open and its retry time has come. A failure worth retrying
  // schedules the next attempt and returns OK; anything else is returned.
  absl::Status OpenIfDue();
  // The open stream failed with `status`. Unavailable from the Postgres side: the stream is
  // closed and reopened later, OK is returned. Anything else is returned for the caller.
  absl::Status OnFailure(absl::Status status);

  // A stop was requested: a failed stream is closed, not reopened.
  void NoMoreRestarts() { restarting_ = false; }

  SlotStream* stream() const { return stream_.get(); }
  // When OpenIfDue() has something to do while no stream is open.
  std::chrono::steady_clock::time_point retry_at() const { return retry_at_; }

 private:
  absl::Status Retry(const absl::Status& status);

  RelayContext& ctx_;
  Publisher& publisher_;
  const outbox::Encoder& encoder_;
  const std::string slot_;
  metrics::SlotMetrics& slot_metrics_;  // The slot's restarts.
  std::unique_ptr<SlotStream> stream_;
  Backoff backoff_;
  std::chrono::steady_clock::time_point retry_at_;  // Epoch: at once.
  std::chrono::steady_clock::time_point started_;   // When the current stream opened.
  bool connected_before_ = false;
  bool restarting_ = true;
};

}  // namespace outboxd::relay
