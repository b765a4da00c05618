#include "relay/supervisor.h"

#include <poll.h>

#include <chrono>
#include <memory>
#include <vector>

#include "common/log.h"
#include "common/status.h"
#include "outbox/encoder.h"
#include "relay/failure.h"
#include "relay/publisher.h"
#include "relay/relay_loop.h"
#include "relay/stream_supervisor.h"

namespace outboxd::relay {
namespace {

// Sleeps for `delay` unless a stop is requested first; returns true when asked to stop.
bool WaitOrStop(RelayContext& ctx, std::chrono::milliseconds delay) {
  pollfd fd{.fd = ctx.stop.fd(), .events = POLLIN, .revents = 0};
  if (ctx.connectors.poll(&fd, 1, static_cast<int>(delay.count())) > 0) ctx.stop.Consume();
  return ctx.stop.requested();
}

// One life of the producer: its publisher, a stream per slot, the loop, and the shutdown once
// a stop is requested. Returns the failure that ended it, or what the shutdown returned.
absl::Status RunWithProducer(RelayContext& ctx, Publisher& publisher,
                             const outbox::Encoder& encoder) {
  std::vector<StreamSupervisor> streams;
  streams.emplace_back(ctx, publisher, encoder, ctx.config.postgres.slot);
  absl::Status status = RunLoop(ctx, publisher, streams);
  if (status.ok() && ctx.stop.requested()) status = Shutdown(ctx, publisher, streams);
  ctx.health.SetStreaming(false, status.ok() ? "stopped" : std::string(MessageOf(status)));
  return status;
}

}  // namespace

absl::Status RunRelay(RelayContext& ctx) {
  // The output format, chosen once and shared by every slot's stream.
  const std::unique_ptr<const outbox::Encoder> encoder = outbox::CreateEncoder(ctx.config.outbox);
  Backoff backoff;
  LateRejections late_rejections;  // Outlives each producer's publisher.
  while (true) {
    const auto started = ctx.clock.SteadyNow();
    auto publisher = Publisher::Create(ctx.connectors.producer, ctx.config, ctx.clock, ctx.metrics,
                                       &late_rejections);
    // The transaction that InitTransactions just settled may have committed after all.
    if (publisher.ok() && (*publisher)->transactional() && ctx.positions != nullptr) {
      ctx.positions->Reload();
    }
    absl::Status status = publisher.ok() ? RunWithProducer(ctx, **publisher, *encoder)
                                         : Blame(FailureSide::kKafka, publisher.status());
    if (ctx.stop.requested()) {
      if (!status.ok()) {
        return Annotate(status,
                        "stopping without confirming the final position (what Kafka "
                        "acknowledged since the last confirmation will be sent again)");
      }
      return status;
    }
    if (status.ok() || !absl::IsUnavailable(status)) return status;
    const auto delay = backoff.Next(started, ctx.clock.SteadyNow());
    ctx.metrics.restarts.With(SideLabel(SideOf(status))).Add();
    log::Warn("{}; restarting from the slots' confirmed positions in {} ms", MessageOf(status),
              delay.count());
    if (WaitOrStop(ctx, delay)) return absl::OkStatus();
  }
}

}  // namespace outboxd::relay
