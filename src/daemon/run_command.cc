#include "daemon/run_command.h"

#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/service_notify.h"
#include "common/status.h"
#include "common/types.h"
#include "daemon/exit_codes.h"
#include "daemon/reshard.h"
#include "fmt/ranges.h"
#include "http/status_server.h"
#include "metrics/health.h"
#include "metrics/health_join.h"
#include "metrics/metrics.h"
#include "pg/slot_monitor.h"
#include "position/position_guard.h"
#include "relay/context.h"
#include "relay/supervisor.h"

namespace outboxd::daemon {
namespace {

// SIGTERM/SIGINT become readable events on a signalfd that the loop polls, so shutdown is an
// ordinary event on the loop thread rather than an async handler.
int StopSignalFd() {
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  sigprocmask(SIG_BLOCK, &mask, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  return ::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
}

// Serves /metrics, /healthz and /readyz when [http] listen is set. Call after StopSignalFd():
// the server's threads inherit the blocked signal mask, so SIGTERM still reaches the signalfd.
absl::Status StartStatusServer(const config::HttpConfig& config, http::StatusServer& server) {
  if (config.listen.empty()) return absl::OkStatus();
  if (auto s = server.Start(config.listen); !s.ok()) return s;
  log::Info("serving /metrics, /healthz and /readyz on {} (port {})", config.listen, server.port());
  return absl::OkStatus();
}

// The failover checks at every connect: the server and slot against the last position record.
pg::ResumeCheck ResumeCheckOf(position::PositionGuard& guard) {
  return [&guard](const pg::ServerIdentity& id, const std::optional<pg::SlotInfo>& slot) {
    position::ServerView view{.system_id = id.system_id,
                              .timeline = id.timeline,
                              .slot_exists = slot.has_value(),
                              .slot_confirmed = Lsn(),
                              .synced = slot.has_value() && slot->synced};
    if (slot) view.slot_confirmed = Lsn::Parse(slot->confirmed_flush_lsn).value_or(Lsn());
    return guard.Check(view);
  };
}

position::GuardOptions GuardOptionsOf(const std::string& slot, const RunFlags& flags) {
  return {.slot = slot, .allow_new_slot = flags.allow_new_slot};
}

// The WAL guard of one slot, reporting to `health`.
std::unique_ptr<pg::SlotMonitor> SlotMonitorOf(const config::PostgresConfig& pg,
                                               const std::string& slot,
                                               metrics::RelayMetrics& metrics,
                                               metrics::Health& health) {
  return std::make_unique<pg::SlotMonitor>(
      pg::SlotMonitorOptions{
          .conninfo = pg.conninfo,
          .slot = slot,
          .interval = std::chrono::milliseconds(pg.slot_check_interval_ms),
          .min_safe_wal_size_bytes = pg.min_safe_wal_size_mb < 0
                                         ? -1  // Automatic: from max_slot_wal_keep_size.
                                         : int64_t{pg.min_safe_wal_size_mb} << 20},
      metrics, health);
}

// systemd's STATUS= line for a readiness snapshot: what it streams, or what it waits for.
std::string StatusLineOf(const metrics::Health::Snapshot& health) {
  if (health.Ready()) return health.streaming.reason;
  std::vector<std::string> waits;
  if (!health.streaming.ok) waits.push_back("for Postgres (" + health.streaming.reason + ")");
  if (!health.producer.ok) waits.push_back("for Kafka (" + health.producer.reason + ")");
  if (!health.slot.ok) waits.push_back("for the slot to be safe (" + health.slot.reason + ")");
  return "waiting " + absl::StrJoin(waits, ", ");
}

// Tells systemd (Type=notify) about readiness as it changes; nothing without NOTIFY_SOCKET.
void NotifyServiceManager(ServiceNotifier& notifier, metrics::Health& health) {
  if (!notifier.enabled()) return;
  log::Info("systemd notification socket set: READY=1 once streaming{}",
            notifier.watchdog_timeout().count() > 0
                ? fmt::format(", watchdog fed by the relay loop (timeout {} ms)",
                              notifier.watchdog_timeout().count() / 1000)
                : std::string());
  notifier.Update(false, "starting");
  health.OnChange([&notifier](const metrics::Health::Snapshot& snapshot) {
    notifier.Update(snapshot.Ready(), StatusLineOf(snapshot));
  });
}

// What every relay run of one process shares: the stop signal, metrics and health, which the
// status server reads across runs.
struct Shared {
  relay::StopSignal& stop;
  metrics::RelayMetrics& metrics;
  metrics::Health& health;
  ServiceNotifier& notifier;
  const RunFlags& flags;
};

// One relay run over the slot family of `config` ([postgres] slot, publication and
// parallel_slots), with its WAL guards and position records; up to `stop_at` when resharding.
absl::Status RunFamily(Shared& shared, const config::Config& config, std::optional<Lsn> stop_at) {
  const std::vector<std::string> slots = config::SlotNames(config.postgres);
  // Parallel slots: each slot's readiness joined into the one /readyz (metrics/health_join.h).
  std::unique_ptr<metrics::HealthJoin> slot_health;
  if (slots.size() > 1) slot_health = std::make_unique<metrics::HealthJoin>(shared.health, slots);
  auto health_of = [&](size_t i) -> metrics::Health& {
    return slot_health ? slot_health->part(i) : shared.health;
  };
  // The WAL guard of each slot runs beside the relay for its whole life (docs/operating.md,
  // "WAL-safety guard").
  std::vector<std::unique_ptr<pg::SlotMonitor>> slot_monitors;
  auto stop_monitors = [&slot_monitors] {
    for (const auto& monitor : slot_monitors) monitor->Stop();
  };
  for (size_t i = 0; i < slots.size(); ++i) {
    slot_monitors.push_back(SlotMonitorOf(config.postgres, slots[i], shared.metrics, health_of(i)));
    if (auto s = slot_monitors.back()->Start(); !s.ok()) {
      stop_monitors();
      return s;
    }
  }
  auto position_store = position::PositionStore::Create(config.kafka);
  if (!position_store.ok()) {
    stop_monitors();
    return position_store.status();
  }
  // One position record per slot, all in the one store.
  std::vector<std::unique_ptr<position::PositionGuard>> position_guards;
  position_guards.reserve(slots.size());
  for (const std::string& slot : slots) {
    position_guards.push_back(std::make_unique<position::PositionGuard>(
        **position_store, GuardOptionsOf(slot, shared.flags)));
  }
  // Kafka reads the position record while the relay connects to Postgres. Not for exactly_once:
  // there the record is read after InitTransactions settled the last transaction (Reload). Not
  // with several slots either: the store serves one read at a time, and each guard reads its
  // record itself at its slot's first connect.
  if (config.relay.delivery != config::Delivery::kExactlyOnce && slots.size() == 1) {
    position_guards[0]->Prefetch();
  }
  SystemClock clock;
  relay::RelayContext context{
      .config = config,
      .clock = clock,
      .metrics = shared.metrics,
      .health = shared.health,
      .stop = shared.stop,
      .connectors = relay::LiveConnectors(config, ResumeCheckOf(*position_guards[0]))};
  // A lost slot ends the run with exit 6 (Aborted), whichever stage is busy.
  context.positions = position_guards[0].get();
  context.notifier = &shared.notifier;
  context.slot_check = [&slot_monitors] {
    for (const auto& monitor : slot_monitors) {
      if (monitor->lost()) return absl::AbortedError(monitor->lost_message());
    }
    return absl::OkStatus();
  };
  context.stop_at = stop_at;
  if (slots.size() > 1) {
    for (size_t i = 0; i < slots.size(); ++i) {
      context.parallel_slots.push_back(
          {.slot = slots[i],
           .replication = relay::LiveReplication(config, static_cast<int>(i),
                                                 ResumeCheckOf(*position_guards[i])),
           .positions = position_guards[i].get(),
           .health = &health_of(i)});
    }
  }
  absl::Status status = relay::RunRelay(context);
  stop_monitors();
  return status;
}

}  // namespace

int RunDaemon(const config::Config& config, const metrics::BuildInfo& build,
              const RunFlags& flags) {
  const int stop_fd = StopSignalFd();
  if (stop_fd < 0) {
    log::Error("cannot create a signalfd for SIGTERM/SIGINT");
    return kExitFailure;
  }
  std::vector<std::string> tables;
  for (const auto& t : config.postgres.tables) tables.push_back(t.ToString());
  log::Info("outboxd {} starting (librdkafka {}, libpq {}): tables {}, slot {}, publication {}{}",
            build.version, build.librdkafka, build.libpq, fmt::join(tables, ", "),
            config.postgres.slot, config.postgres.publication,
            config.postgres.parallel_slots > 1
                ? fmt::format(", {} parallel slots {}_<i> (publications {}_<i>)",
                              config.postgres.parallel_slots, config.postgres.slot,
                              config.postgres.publication)
                : std::string());
  // One of each per process; they outlive the relay and the status server that read them.
  metrics::RelayMetrics metrics;
  ServiceNotifier notifier;  // Before health: health's observer calls it.
  metrics::Health health;
  NotifyServiceManager(notifier, health);
  http::StatusServer status_server(metrics, health, build);
  if (auto s = StartStatusServer(config.http, status_server); !s.ok()) {
    // A bad or busy listen address is a configuration problem: exit 2 with the fix.
    log::Error("{}", MessageOf(s));
    ::close(stop_fd);
    return kExitUsage;
  }
  relay::StopSignal stop(stop_fd);
  Shared shared{
      .stop = stop, .metrics = metrics, .health = health, .notifier = notifier, .flags = flags};
  // A changed parallel_slots first moves the stream to the new slots (daemon/reshard.h).
  const RunToCut run_to_cut = [&shared](const config::Config& family, Lsn cut) {
    return RunFamily(shared, family, cut);
  };
  bool checked = false;
  absl::Status status = Reshard(config, run_to_cut, stop, checked);
  if (status.ok() && !stop.requested()) status = RunFamily(shared, config, std::nullopt);
  // Postgres was unreachable at start-up, so the slots were not looked at; set-up refuses slots
  // of another count (pg::CheckSlotFamily): reshard now that Postgres answers, then run again.
  if (!checked && absl::IsFailedPrecondition(status) && !stop.requested()) {
    status = Reshard(config, run_to_cut, stop, checked);
    if (status.ok() && !stop.requested()) status = RunFamily(shared, config, std::nullopt);
  }
  status_server.Stop();
  ::close(stop_fd);
  if (!status.ok()) {
    log::Error("{}", MessageOf(status));
    return ExitCodeFor(status);
  }
  log::Info("exiting: {} events published, {} dead-lettered",
            metrics::Sum(metrics.events_published), metrics::Sum(metrics.dead_lettered));
  return kExitOk;
}

}  // namespace outboxd::daemon
