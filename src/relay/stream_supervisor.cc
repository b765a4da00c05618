#include "relay/stream_supervisor.h"

#include <algorithm>

#include "common/log.h"
#include "common/status.h"
#include "common/strings.h"
#include "relay/failure.h"

namespace outboxd::relay {
namespace {

constexpr auto kInitialBackoff = std::chrono::milliseconds(500);
// Also bounds how long a hot standby takes to notice that the slot was released.
constexpr auto kMaxBackoff = std::chrono::milliseconds(10'000);
// A run this long was healthy: the next failure starts a fresh backoff.
constexpr auto kHealthyRun = std::chrono::seconds(60);

}  // namespace

std::chrono::milliseconds Backoff::Next(std::chrono::steady_clock::time_point started,
                                        std::chrono::steady_clock::time_point now) {
  if (now - started > kHealthyRun) next_ = kInitialBackoff;
  const auto delay = next_;
  next_ = std::min(next_ * 2, kMaxBackoff);
  return delay;
}

StreamSupervisor::StreamSupervisor(RelayContext& context, Publisher& publisher,
                                   const outbox::Encoder& encoder, std::string slot)
    : ctx_(context),
      publisher_(publisher),
      encoder_(encoder),
      slot_(std::move(slot)),
      // Also makes the slot's series appear on /metrics before its stream first opens.
      slot_metrics_(context.metrics.Slot(slot_)) {}

absl::Status StreamSupervisor::OpenIfDue() {
  if (stream_ || !restarting_ || ctx_.clock.SteadyNow() < retry_at_) return absl::OkStatus();
  started_ = ctx_.clock.SteadyNow();
  auto stream = SlotStream::Open(ctx_, publisher_, encoder_, slot_);
  if (!stream.ok()) return OnFailure(stream.status());
  stream_ = std::move(*stream);
  log::Info("slot {} streaming {} ms after its stream started opening", slot_,
            std::chrono::duration_cast<std::chrono::milliseconds>(ctx_.clock.SteadyNow() - started_)
                .count());
  if (connected_before_) ctx_.metrics.reconnects.With("postgres").Add();
  connected_before_ = true;
  ctx_.health.SetStreaming(true, Concat("streaming slot ", slot_));
  return absl::OkStatus();
}

absl::Status StreamSupervisor::OnFailure(absl::Status status) {
  stream_.reset();
  ctx_.health.SetStreaming(false, std::string(MessageOf(status)));
  if (SideOf(status) == FailureSide::kKafka || !absl::IsUnavailable(status)) return status;
  return Retry(status);
}

absl::Status StreamSupervisor::Retry(const absl::Status& status) {
  if (!restarting_) {
    log::Warn("{}; slot {} stops here", MessageOf(status), slot_);
    return absl::OkStatus();
  }
  const auto now = ctx_.clock.SteadyNow();
  const auto delay = backoff_.Next(started_, now);
  slot_metrics_.restarts.With(SideLabel(SideOf(status))).Add();
  log::Warn("{}; restarting slot {} from its confirmed position in {} ms", MessageOf(status), slot_,
            delay.count());
  retry_at_ = now + delay;
  return absl::OkStatus();
}

}  // namespace outboxd::relay
