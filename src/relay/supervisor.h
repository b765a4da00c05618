#pragma once
// Restart policy: runs one Pipeline after another until asked to stop.

#include "absl/status/status.h"
#include "relay/context.h"

namespace outboxd::relay {

// Runs the relay until `context.stop` fires, then returns what the drained shutdown returned
// (OK when the final confirmation was sent): a stop request always ends the run, even when the
// shutdown itself failed. Retriable failures (Unavailable: database or broker down, slot held
// by another instance, failed delivery) restart the pipeline from the slot's confirmed LSN
// after an exponential backoff; any other error is returned for the caller to exit with.
absl::Status RunRelay(RelayContext& context);

}  // namespace outboxd::relay
