#pragma once
// The thin loop: polls the stop signal, the producers' event fds and every slot's replication
// socket, and hands each what it is ready for. Nothing else: the streams own their sessions,
// the publisher owns the producer, the stream supervisors own the restarts.

#include <chrono>
#include <functional>
#include <optional>
#include <span>

#include "absl/status/status.h"
#include "relay/context.h"
#include "relay/publisher.h"
#include "relay/stream_supervisor.h"

namespace outboxd::relay {

// The publishers the streams hand records to: one shared by every stream, or (exactly_once
// with parallel slots) one per stream.
using Publishers = std::span<Publisher* const>;

struct LoopOptions {
  // Checked after every round; the loop returns OK once it holds. Empty: run until stopped.
  std::function<bool()> done;
  // The loop returns OK at this time at the latest.
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

// Runs rounds until a stop is requested (the signal is consumed and latched in context.stop),
// `options` says it is done, or something fails that a stream restart does not cure: then the
// error, blamed on its side (relay/failure.h). Runs on the loop thread.
absl::Status RunLoop(RelayContext& context, Publishers publishers,
                     std::span<StreamSupervisor> streams, const LoopOptions& options = {});

// After a stop: reads each stream on to the Commit of its open transaction, waits for what
// Kafka has yet to acknowledge, confirms it, all within shutdown_timeout_ms (a second stop
// request ends the reading on at once). OK once every open stream sent its final confirmation.
absl::Status Shutdown(RelayContext& context, Publishers publishers,
                      std::span<StreamSupervisor> streams);

}  // namespace outboxd::relay
