#include "relay/supervisor.h"

#include <poll.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "common/log.h"
#include "common/status.h"
#include "encoding/encoder_factory.h"
#include "registry/schema_ids.h"
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

// The context of one parallel slot's stream: the run's, with the slot's own parts.
RelayContext SlotContextOf(const RelayContext& ctx, const SlotBinding& slot) {
  RelayContext out{.config = ctx.config,
                   .clock = ctx.clock,
                   .metrics = ctx.metrics,
                   .health = slot.health != nullptr ? *slot.health : ctx.health,
                   .stop = ctx.stop,
                   .connectors = ctx.connectors,
                   .slot_check = ctx.slot_check,
                   .positions = slot.positions,
                   .notifier = ctx.notifier,
                   .parallel_slots = {},
                   .stop_at = ctx.stop_at};
  out.connectors.replication = slot.replication;
  return out;
}

// The slots the run streams: [postgres] slot, or one per parallel slot.
std::vector<std::string> SlotsOf(const RelayContext& ctx) {
  if (ctx.parallel_slots.empty()) return {ctx.config.postgres.slot};
  std::vector<std::string> slots;
  for (const SlotBinding& slot : ctx.parallel_slots) slots.push_back(slot.slot);
  return slots;
}

// One life of the producers: the publishers, a stream per slot, the loop, and the shutdown
// once a stop is requested. Returns the failure that ended it, or what the shutdown returned.
absl::Status RunWithPublishers(RelayContext& ctx, const std::vector<Publisher*>& publishers,
                               const outbox::Encoder& encoder) {
  std::deque<RelayContext> slot_contexts;  // Stable addresses; outlive the streams.
  std::vector<StreamSupervisor> streams;
  if (ctx.parallel_slots.empty()) {
    streams.emplace_back(ctx, *publishers[0], encoder, ctx.config.postgres.slot);
  }
  for (size_t i = 0; i < ctx.parallel_slots.size(); ++i) {
    Publisher& publisher = *publishers[publishers.size() == 1 ? 0 : i];
    streams.emplace_back(slot_contexts.emplace_back(SlotContextOf(ctx, ctx.parallel_slots[i])),
                         publisher, encoder, ctx.parallel_slots[i].slot);
  }
  LoopOptions options;
  if (ctx.stop_at) {
    options.done = [&streams] {
      return std::all_of(streams.begin(), streams.end(), [](const StreamSupervisor& s) {
        return s.stream() != nullptr && s.stream()->SettledAtCut();
      });
    };
  }
  absl::Status status = RunLoop(ctx, publishers, streams, options);
  // At the cut nothing is left to drain: the shutdown only sends the final confirmations.
  if (status.ok() && (ctx.stop.requested() || ctx.stop_at)) {
    status = Shutdown(ctx, publishers, streams);
  }
  const std::string reason = status.ok() ? "stopped" : std::string(MessageOf(status));
  // Each slot's part too, so that the next run's "streaming" is a change the join reports.
  for (const SlotBinding& slot : ctx.parallel_slots) {
    if (slot.health != nullptr) slot.health->SetStreaming(false, reason);
  }
  ctx.health.SetStreaming(false, reason);
  return status;
}

// One publisher shared by every stream; with exactly_once and parallel slots, one per slot: a
// Kafka transaction then never mixes slots, so one stream's restart aborts only its own
// records, and each slot's transactional.id fences only that slot's previous owner.
absl::StatusOr<std::vector<std::unique_ptr<Publisher>>> CreatePublishers(
    RelayContext& ctx, LateRejections& late_rejections) {
  const bool per_slot =
      ctx.config.relay.delivery == config::Delivery::kExactlyOnce && !ctx.parallel_slots.empty();
  const size_t count = per_slot ? ctx.parallel_slots.size() : 1;
  std::vector<std::unique_ptr<Publisher>> publishers;
  for (size_t i = 0; i < count; ++i) {
    auto publisher = Publisher::Create(ctx.connectors.producer, ctx.config, ctx.clock, ctx.metrics,
                                       {.slot_index = static_cast<int>(i),
                                        .late_rejections = &late_rejections,
                                        .wait_or_stop = [&ctx](std::chrono::milliseconds delay) {
                                          return WaitOrStop(ctx, delay);
                                        }});
    if (!publisher.ok()) return publisher.status();
    // The transaction that InitTransactions just settled may have committed after all.
    position::PositionGuard* positions = per_slot ? ctx.parallel_slots[i].positions : ctx.positions;
    if ((*publisher)->transactional() && positions != nullptr) positions->Reload();
    publishers.push_back(*std::move(publisher));
  }
  return publishers;
}

// The avro converters' registry client and id cache; null when no converter is "avro".
absl::StatusOr<std::unique_ptr<registry::CachedSchemaIds>> CreateSchemaIds(RelayContext& ctx) {
  const config::OutboxConfig& outbox = ctx.config.outbox;
  if (!config::UsesAvro(outbox)) return nullptr;
  auto client = registry::RegistryClient::Create(ctx.config.schema_registry);
  if (!client.ok()) return client.status();
  return std::make_unique<registry::CachedSchemaIds>(ctx.config.schema_registry, std::move(*client),
                                                     ctx.clock);
}

}  // namespace

absl::Status RunRelay(RelayContext& ctx) {
  auto schema_ids = CreateSchemaIds(ctx);
  if (!schema_ids.ok()) return schema_ids.status();
  // The output format, chosen once and shared by every slot's stream.
  const std::unique_ptr<const outbox::Encoder> encoder =
      encoding::CreateEncoder(ctx.config.outbox, encoding::ProcessRunId(), schema_ids->get());
  Backoff backoff;
  LateRejections late_rejections;  // Outlives each producer's publisher.
  while (true) {
    const auto started = ctx.clock.SteadyNow();
    auto publishers = CreatePublishers(ctx, late_rejections);
    if (!publishers.ok() && absl::IsCancelled(publishers.status()) && ctx.stop.requested()) {
      log::Info("{}", MessageOf(publishers.status()));
      return absl::OkStatus();
    }
    absl::Status status = Blame(FailureSide::kKafka, publishers.status());
    if (publishers.ok()) {
      std::vector<Publisher*> used;
      for (const auto& publisher : *publishers) used.push_back(publisher.get());
      status = RunWithPublishers(ctx, used, *encoder);
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
    const auto delay = backoff.Next(started, ctx.clock.SteadyNow());
    // Every slot's stream starts again from its confirmed LSN.
    for (const std::string& slot : SlotsOf(ctx)) {
      ctx.metrics.Slot(slot).restarts.With(SideLabel(SideOf(status))).Add();
    }
    log::Warn("{}; restarting from the slots' confirmed positions in {} ms", MessageOf(status),
              delay.count());
    if (WaitOrStop(ctx, delay)) return absl::OkStatus();
  }
}

}  // namespace outboxd::relay
