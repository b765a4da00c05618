#include "daemon/reshard.h"

#include <poll.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "common/log.h"
#include "common/status.h"
#include "fmt/ranges.h"
#include "pg/connection.h"
#include "pg/reshard.h"
#include "pg/slot_setup.h"
#include "relay/context.h"

namespace outboxd::daemon {
namespace {

pg::SlotFamily FamilyOf(const config::PostgresConfig& pg) {
  return {.slot = pg.slot, .publication = pg.publication, .count = pg.parallel_slots};
}

// `config` with its slot family replaced by `family`. Sources are never created: one that is
// missing must not come back at "now", past the events it held.
config::Config FamilyConfig(const config::Config& config, const pg::SlotFamily& family,
                            bool create) {
  config::Config out = config;
  out.postgres.slot = family.slot;
  out.postgres.publication = family.publication;
  out.postgres.parallel_slots = family.count;
  out.postgres.create_slot = create;
  out.postgres.create_publication = create;
  return out;
}

// Creates the target family's publications and slots, highest index first (a family missing
// its first member never looks complete), each publication before its slot.
absl::Status CreateTargets(const config::Config& target_config, const pg::SlotFamily& target) {
  auto sql = pg::Connection::OpenOrdinary(target_config.postgres.conninfo, "outboxd reshard");
  if (!sql.ok()) return sql.status();
  if (auto s = pg::DropPublications(*sql, target); !s.ok()) return s;
  auto replication = pg::Connection::Open(target_config.postgres.conninfo);
  if (!replication.ok()) return replication.status();
  for (int i = target.count - 1; i >= 0; --i) {
    auto prepared = pg::PrepareReplication(*replication, relay::SetupOptionsOf(target_config, i));
    if (!prepared.ok()) return prepared.status();
  }
  return absl::OkStatus();
}

// One hop of pg/reshard.h: targets, cut, sources to the cut, sources dropped.
absl::Status RunHop(const config::Config& config, const pg::ReshardHop& hop,
                    const std::vector<std::string>& existing, const RunToCut& run_to_cut,
                    relay::StopSignal& stop) {
  const config::Config target_config = FamilyConfig(config, hop.target, /*create=*/true);
  const std::vector<std::string> targets = pg::FamilySlots(hop.target);
  const bool created = std::any_of(targets.begin(), targets.end(), [&](const std::string& slot) {
    return std::find(existing.begin(), existing.end(), slot) != existing.end();
  });
  if (!created) {
    if (auto s = CreateTargets(target_config, hop.target); !s.ok()) return s;
  }
  auto sql = pg::Connection::OpenOrdinary(config.postgres.conninfo, "outboxd reshard");
  if (!sql.ok()) return sql.status();
  auto cut = pg::AdvanceToCut(*sql, hop.target);
  if (!cut.ok()) return cut.status();
  const std::vector<std::string> sources = pg::FamilySlots(hop.source);
  log::Info(
      "resharding: slots {} publish every transaction committing before {}, then slots {} take "
      "over from there",
      fmt::join(sources, ", "), cut->ToString(), fmt::join(targets, ", "));
  const config::Config source_config = FamilyConfig(config, hop.source, /*create=*/false);
  if (auto s = run_to_cut(source_config, *cut); !s.ok() || stop.requested()) return s;
  // A long run may have outlived the session: drop on a fresh one.
  sql = pg::Connection::OpenOrdinary(config.postgres.conninfo, "outboxd reshard");
  if (!sql.ok()) return sql.status();
  // Lowest index first (pg/reshard.h), then the publications nothing streams any more.
  if (auto s = pg::DropSlots(*sql, sources); !s.ok()) return s;
  return pg::DropPublications(*sql, hop.source);
}

// One step of the plan; OK with `done` once nothing is left to do.
absl::Status NextStep(const config::Config& config, const RunToCut& run_to_cut,
                      relay::StopSignal& stop, bool& done) {
  const pg::SlotFamily configured = FamilyOf(config.postgres);
  auto sql = pg::Connection::OpenOrdinary(config.postgres.conninfo, "outboxd reshard");
  if (!sql.ok()) return sql.status();
  auto existing = pg::ListReshardSlots(*sql, configured);
  if (!existing.ok()) return existing.status();
  auto step = pg::PlanReshardStep(configured, *existing);
  if (!step.ok()) return step.status();
  if (!step->drop.empty()) {
    log::Info(
        "resharding: dropping {}, left by an interrupted resharding (never streamed, or "
        "already past the cut)",
        fmt::join(step->drop, ", "));
    if (auto s = pg::DropSlots(*sql, step->drop); !s.ok()) return s;
    std::erase_if(*existing, [&](const std::string& slot) {
      return std::find(step->drop.begin(), step->drop.end(), slot) != step->drop.end();
    });
  }
  // Leftovers dropped without a hop: the next call plans again.
  done = !step->hop && step->drop.empty();
  if (!step->hop) return absl::OkStatus();
  log::Info("resharding for [postgres] parallel_slots = {}: from {} slot(s) {} to {} slot(s) {}",
            configured.count, step->hop->source.count, step->hop->source.slot,
            step->hop->target.count, step->hop->target.slot);
  return RunHop(config, *step->hop, *existing, run_to_cut, stop);
}

// Sleeps for `delay` unless a stop is requested first; returns true when asked to stop.
bool WaitOrStop(relay::StopSignal& stop, std::chrono::milliseconds delay) {
  pollfd fd{.fd = stop.fd(), .events = POLLIN, .revents = 0};
  if (::poll(&fd, 1, static_cast<int>(delay.count())) > 0) stop.Consume();
  return stop.requested();
}

}  // namespace

absl::Status Reshard(const config::Config& config, const RunToCut& run_to_cut,
                     relay::StopSignal& stop, bool& checked) {
  checked = false;
  // Slots outboxd may not create are the operator's: set-up judges them as they are.
  if (!config.postgres.create_slot) {
    checked = true;
    return absl::OkStatus();
  }
  auto delay = std::chrono::milliseconds(500);
  while (!stop.requested()) {
    bool done = false;
    const absl::Status s = NextStep(config, run_to_cut, stop, done);
    if (done) {
      checked = true;
      return absl::OkStatus();
    }
    if (s.ok()) {
      checked = true;
      continue;
    }
    // Postgres unreachable before anything started: the relay waits for it, with its back-off,
    // readiness and log lines; the caller checks again once set-up refuses the slots.
    if (absl::IsUnavailable(s) && !checked) return absl::OkStatus();
    // Unreachable in the middle: every step can be taken again, so wait and retry.
    if (!absl::IsUnavailable(s)) {
      return Annotate(s, "resharding (starting outboxd again goes on where it stopped)");
    }
    log::Warn("resharding: {}; trying again in {} ms", MessageOf(s), delay.count());
    if (WaitOrStop(stop, delay)) break;
    delay = std::min(delay * 2, std::chrono::milliseconds(10'000));
  }
  return absl::OkStatus();
}

}  // namespace outboxd::daemon
