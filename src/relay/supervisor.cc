#include "relay/supervisor.h"

#include <poll.h>

#include <algorithm>
#include <chrono>

#include "common/log.h"
#include "common/status.h"
#include "relay/pipeline.h"

namespace outboxd::relay {
namespace {

constexpr auto kInitialBackoff = std::chrono::milliseconds(500);
// Also bounds how long a hot standby takes to notice that the slot was released.
constexpr auto kMaxBackoff = std::chrono::milliseconds(10'000);
// A session that streamed this long was healthy: the next failure starts a fresh backoff.
constexpr auto kHealthySession = std::chrono::seconds(60);

// Sleeps for `delay` unless the stop fd fires first; returns true when asked to stop.
bool WaitOrStop(int stop_fd, std::chrono::milliseconds delay) {
  pollfd fd{.fd = stop_fd, .events = POLLIN, .revents = 0};
  return ::poll(&fd, 1, static_cast<int>(delay.count())) > 0;
}

}  // namespace

absl::Status RunRelay(const config::Config& config, const Clock& clock, Metrics& metrics,
                      int stop_fd) {
  auto backoff = kInitialBackoff;
  while (true) {
    const auto started = clock.SteadyNow();
    absl::Status status = Pipeline(config, clock, metrics, stop_fd).Run();
    if (status.ok() || !absl::IsUnavailable(status)) return status;
    if (clock.SteadyNow() - started > kHealthySession) backoff = kInitialBackoff;
    ++metrics.restarts;
    log::Warn("{}; restarting from the slot's confirmed position in {} ms", MessageOf(status),
              backoff.count());
    if (WaitOrStop(stop_fd, backoff)) return absl::OkStatus();
    backoff =
        std::min(backoff * 2, std::chrono::duration_cast<std::chrono::milliseconds>(kMaxBackoff));
  }
}

}  // namespace outboxd::relay
