#pragma once
// Polling with a deadline: the only way the integration tests wait for each other's effects.

#include <functional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace outboxd::it {

// Calls `done` every `poll` until it returns true (→ true) or `timeout` passes (→ false).
// `done` runs on the calling thread; it is called at least once, and once more at the deadline.
bool WaitUntil(const std::function<bool()>& done, absl::Duration timeout,
               absl::Duration poll = absl::Milliseconds(100));

// As WaitUntil, for a check that can fail: stops at the first error and returns it;
// DeadlineExceeded naming `what` when time runs out.
absl::Status WaitUntilOk(const std::function<absl::StatusOr<bool>()>& done, absl::Duration timeout,
                         absl::string_view what, absl::Duration poll = absl::Milliseconds(100));

}  // namespace outboxd::it
