// Shutdown after a stop request (relay_loop.h): read on to the open transactions' Commits,
// drain what Kafka has yet to acknowledge, send each slot's final confirmation.

#include <algorithm>

#include "common/log.h"
#include "common/status.h"
#include "relay/relay_loop.h"

namespace outboxd::relay {
namespace {

constexpr int kFinalPositionWaitMs = 2000;

bool AnyInTransaction(std::span<StreamSupervisor> streams) {
  return std::any_of(streams.begin(), streams.end(), [](const StreamSupervisor& s) {
    return s.stream() != nullptr && s.stream()->InTransaction();
  });
}

bool AnyOutstanding(std::span<StreamSupervisor> streams) {
  return std::any_of(streams.begin(), streams.end(), [](const StreamSupervisor& s) {
    return s.stream() != nullptr && s.stream()->HasOutstanding();
  });
}

uint64_t OutstandingRecords(std::span<StreamSupervisor> streams) {
  uint64_t total = 0;
  for (const StreamSupervisor& s : streams) {
    if (s.stream() != nullptr) total += s.stream()->outstanding_records();
  }
  return total;
}

// Produces each publisher's dead letters and serves its delivery reports (which advance the
// trackers) for up to `timeout_ms`; false once one of them failed.
bool FlushEach(Publishers publishers, int timeout_ms) {
  for (Publisher* publisher : publishers) {
    if (!publisher->ProduceDeadLetters().ok()) return false;
    publisher->Flush(timeout_ms);
    if (!publisher->status().ok()) return false;
  }
  return true;
}

// A stop between a transaction's rows reads on to its Commit (until `deadline` or a second
// stop request), so what was produced of it can be confirmed and a restart after a clean stop
// repeats nothing. A failure meanwhile is logged and ends the wait: the drain then confirms
// what it can.
void FinishOpenTransactions(RelayContext& ctx, Publishers publishers,
                            std::span<StreamSupervisor> streams,
                            std::chrono::steady_clock::time_point deadline) {
  for (StreamSupervisor& supervisor : streams) {
    SlotStream* stream = supervisor.stream();
    if (stream == nullptr) continue;
    stream->FinishOpenTransaction();
    if (stream->InTransaction()) {
      log::Info("stopping: reading slot {} on to the commit of the open transaction (xid {})",
                stream->slot(), stream->open_xid().value);
    }
  }
  if (!AnyInTransaction(streams)) return;
  const absl::Status s =
      RunLoop(ctx, publishers, streams,
              {.done = [streams] { return !AnyInTransaction(streams); }, .deadline = deadline});
  if (!s.ok()) log::Warn("stopping: {} while reading on to the commit", MessageOf(s));
  for (const StreamSupervisor& supervisor : streams) {
    const SlotStream* stream = supervisor.stream();
    if (stream == nullptr || !stream->InTransaction()) continue;
    log::Warn(
        "stopping slot {} inside transaction xid {}: its rows already in Kafka will be "
        "published again after a restart",
        stream->slot(), stream->open_xid().value);
  }
}

}  // namespace

absl::Status Shutdown(RelayContext& ctx, Publishers publishers,
                      std::span<StreamSupervisor> streams) {
  const auto deadline =
      ctx.clock.SteadyNow() + std::chrono::milliseconds(ctx.config.relay.shutdown_timeout_ms);
  for (StreamSupervisor& supervisor : streams) supervisor.NoMoreRestarts();
  FinishOpenTransactions(ctx, publishers, streams, deadline);
  // exactly_once: what was read to a Commit goes out in one last Kafka transaction.
  for (StreamSupervisor& supervisor : streams) {
    if (supervisor.stream() == nullptr) continue;
    if (auto s = supervisor.stream()->CommitTransaction(); !s.ok()) return s;
  }
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - ctx.clock.SteadyNow());
  log::Info("stopping: waiting up to {} ms for {} outstanding Kafka deliveries",
            std::max<int64_t>(0, left.count()), OutstandingRecords(streams));
  while (ctx.clock.SteadyNow() < deadline && AnyOutstanding(streams)) {
    if (!FlushEach(publishers, 50)) break;
    // Keep confirming while draining, so a long drain never trips wal_sender_timeout.
    for (StreamSupervisor& supervisor : streams) {
      if (supervisor.stream() == nullptr) continue;
      if (auto s = supervisor.stream()->SendStatusIfDue(); !s.ok()) return s;
    }
  }
  for (StreamSupervisor& supervisor : streams) {
    if (supervisor.stream() == nullptr) continue;
    if (auto s = supervisor.stream()->SendFinalStatus(); !s.ok()) return s;
  }
  // The final position records. Short: a shutdown must not wait long on a broker that is down.
  if (ctx.positions == nullptr) return absl::OkStatus();
  for (Publisher* publisher : publishers) publisher->Flush(kFinalPositionWaitMs);
  return absl::OkStatus();
}

}  // namespace outboxd::relay
