#include "harness/wait.h"

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace outboxd::it {

bool WaitUntil(const std::function<bool()>& done, absl::Duration timeout, absl::Duration poll) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    if (done()) return true;
    if (absl::Now() >= deadline) return false;
    absl::SleepFor(std::min(poll, std::max(deadline - absl::Now(), absl::ZeroDuration())));
  }
}

absl::Status WaitUntilOk(const std::function<absl::StatusOr<bool>()>& done, absl::Duration timeout,
                         absl::string_view what, absl::Duration poll) {
  absl::Status error;
  const bool ok = WaitUntil(
      [&] {
        absl::StatusOr<bool> r = done();
        if (!r.ok()) error = r.status();
        return !r.ok() || *r;
      },
      timeout, poll);
  if (!error.ok()) return error;
  if (!ok) {
    return absl::DeadlineExceededError(
        absl::StrCat("timed out after ", absl::FormatDuration(timeout), " waiting for ", what));
  }
  return absl::OkStatus();
}

}  // namespace outboxd::it
