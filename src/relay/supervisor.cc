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

// Sleeps for `delay` unless a stop is requested first; returns true when asked to stop.
bool WaitOrStop(RelayContext& ctx, std::chrono::milliseconds delay) {
  pollfd fd{.fd = ctx.stop.fd(), .events = POLLIN, .revents = 0};
  if (ctx.connectors.poll(&fd, 1, static_cast<int>(delay.count())) > 0) ctx.stop.Consume();
  return ctx.stop.requested();
}

}  // namespace

absl::Status RunRelay(RelayContext& ctx) {
  auto backoff = kInitialBackoff;
  bool connected_before = false;
  while (true) {
    const auto started = ctx.clock.SteadyNow();
    Pipeline pipeline(ctx);
    absl::Status status = pipeline.Run();
    if (pipeline.connected()) {
      if (connected_before) ctx.metrics.reconnects.With("postgres").Add();
      connected_before = true;
    }
    if (ctx.stop.requested()) {
      if (!status.ok()) {
        return Annotate(status,
                        "stopping without confirming the final position (what Kafka "
                        "acknowledged since the last confirmation will be sent again)");
      }
      return status;
    }
    if (status.ok() || !absl::IsUnavailable(status)) return status;
    if (ctx.clock.SteadyNow() - started > kHealthySession) backoff = kInitialBackoff;
    ctx.metrics.restarts.With(pipeline.failure_cause()).Add();
    log::Warn("{}; restarting from the slot's confirmed position in {} ms", MessageOf(status),
              backoff.count());
    if (WaitOrStop(ctx, backoff)) return absl::OkStatus();
    backoff =
        std::min(backoff * 2, std::chrono::duration_cast<std::chrono::milliseconds>(kMaxBackoff));
  }
}

}  // namespace outboxd::relay
