#include "relay/relay_loop.h"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <vector>

#include "common/log.h"
#include "common/status.h"
#include "common/strings.h"
#include "relay/failure.h"

namespace outboxd::relay {
namespace {

using TimePoint = std::chrono::steady_clock::time_point;

// poll()'s longest wait when nothing is due (no stream open, no deadline).
constexpr int64_t kMaxWaitMs = 60'000;

// Reports the brokers' reachability to Health when it changes.
class ProducerHealth {
 public:
  void Report(RelayContext& ctx, Publishers publishers) {
    const bool healthy = std::none_of(publishers.begin(), publishers.end(),
                                      [](const Publisher* p) { return p->brokers_down(); });
    if (healthy_ == healthy) return;
    healthy_ = healthy;
    ctx.health.SetProducer(healthy, healthy ? "Kafka reachable" : "Kafka unreachable");
  }

 private:
  std::optional<bool> healthy_;
};

// Opens due streams and lets each open one send its status update; the earliest time any of
// them needs the loop back.
absl::Status PrepareStreams(std::span<StreamSupervisor> streams, TimePoint& wake_at) {
  for (StreamSupervisor& supervisor : streams) {
    if (auto s = supervisor.OpenIfDue(); !s.ok()) return s;
    SlotStream* stream = supervisor.stream();
    if (stream == nullptr) {
      wake_at = std::min(wake_at, supervisor.retry_at());
      continue;
    }
    if (auto s = stream->Prepare(); !s.ok()) {
      if (auto fatal = supervisor.OnFailure(s); !fatal.ok()) return fatal;
      wake_at = std::min(wake_at, supervisor.retry_at());
      continue;
    }
    wake_at = std::min(wake_at, stream->Deadline());
  }
  return absl::OkStatus();
}

// One round: waits until a socket, a producer or the stop signal is ready or `wake_at`, then
// serves them. Sets `stopped` when a stop was requested. `fds` is scratch, reused.
absl::Status Round(RelayContext& ctx, Publishers publishers, std::span<StreamSupervisor> streams,
                   TimePoint wake_at, std::vector<pollfd>& fds, bool& stopped) {
  // Delivery reports are served every round; waking for one only pays while Kafka's queue
  // holds reading up or once a confirm may go out. Waking for each report cost a context
  // switch per event at low rates (about a third of outboxd's CPU at 1k events/s).
  bool wake_for_acks = false;
  fds.clear();
  fds.push_back({.fd = ctx.stop.fd(), .events = POLLIN, .revents = 0});
  for (const Publisher* publisher : publishers) {
    fds.push_back({.fd = publisher->event_fd(), .events = 0, .revents = 0});
  }
  const size_t first_stream = fds.size();
  for (const StreamSupervisor& supervisor : streams) {
    const SlotStream* stream = supervisor.stream();
    fds.push_back(stream ? stream->PollRequest() : pollfd{.fd = -1, .events = 0, .revents = 0});
    wake_for_acks = wake_for_acks || (stream != nullptr && stream->WantsAcks());
  }
  for (size_t i = 1; wake_for_acks && i < first_stream; ++i) fds[i].events = POLLIN;
  const auto wait = std::chrono::ceil<std::chrono::milliseconds>(wake_at - ctx.clock.SteadyNow());
  const int timeout_ms = static_cast<int>(std::clamp<int64_t>(wait.count(), 0, kMaxWaitMs));
  if (ctx.connectors.poll(fds.data(), fds.size(), timeout_ms) < 0 && errno != EINTR) {
    return absl::InternalError(Concat("poll failed: errno ", errno));
  }
  if (fds[0].revents & POLLIN) {
    ctx.stop.Consume();
    stopped = true;
    return absl::OkStatus();
  }
  for (size_t i = 0; i < publishers.size(); ++i) {
    Publisher& publisher = *publishers[i];
    publisher.Poll((fds[1 + i].revents & POLLIN) != 0);
    if (auto s = publisher.status(); !s.ok()) return Blame(FailureSide::kKafka, s);
    if (auto s = publisher.ProduceDeadLetters(); !s.ok()) return Blame(FailureSide::kKafka, s);
  }
  for (size_t i = 0; i < streams.size(); ++i) {
    SlotStream* stream = streams[i].stream();
    if (stream == nullptr) continue;
    if (auto s = stream->Service(fds[first_stream + i].revents); !s.ok()) {
      if (auto fatal = streams[i].OnFailure(s); !fatal.ok()) return fatal;
    }
  }
  // OK while the slot is safe to stream from: a lost slot ends the run (exit 6).
  return Blame(FailureSide::kSlot, ctx.slot_check());
}

}  // namespace

absl::Status RunLoop(RelayContext& ctx, Publishers publishers, std::span<StreamSupervisor> streams,
                     const LoopOptions& options) {
  ProducerHealth producer_health;
  std::vector<pollfd> fds;
  fds.reserve(1 + publishers.size() + streams.size());
  while (true) {
    TimePoint wake_at = options.deadline.value_or(TimePoint::max());
    if (ctx.notifier != nullptr) wake_at = std::min(wake_at, ctx.notifier->WatchdogDue());
    if (auto s = PrepareStreams(streams, wake_at); !s.ok()) return s;
    bool stopped = false;
    if (auto s = Round(ctx, publishers, streams, wake_at, fds, stopped); !s.ok()) return s;
    producer_health.Report(ctx, publishers);
    if (ctx.notifier != nullptr) ctx.notifier->LoopTurned(ctx.clock.SteadyNow());
    if (stopped || (options.done && options.done())) return absl::OkStatus();
    if (options.deadline && ctx.clock.SteadyNow() >= *options.deadline) return absl::OkStatus();
  }
}

}  // namespace outboxd::relay
