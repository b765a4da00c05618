#pragma once
// Restart policy: runs one Pipeline after another until asked to stop.

#include "absl/status/status.h"
#include "common/clock.h"
#include "config/config.h"
#include "relay/metrics.h"

namespace outboxd::relay {

// Runs the relay until `stop_fd` (a signalfd) becomes readable, then returns OK after a
// drained shutdown. Retriable failures (Unavailable: database or broker down, slot held by
// another instance, failed delivery) restart the pipeline from the slot's confirmed LSN after
// an exponential backoff; any other error is returned for the caller to exit with.
absl::Status RunRelay(const config::Config& config, const Clock& clock, Metrics& metrics,
                      int stop_fd);

}  // namespace outboxd::relay
