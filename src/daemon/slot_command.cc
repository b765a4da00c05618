#include "daemon/slot_command.h"

#include <string>
#include <vector>

#include "common/log.h"
#include "common/status.h"
#include "common/strings.h"
#include "daemon/exit_codes.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "pg/catalog.h"
#include "pg/server_checks.h"
#include "pg/slot_setup.h"
#include "position/position_store.h"
#include "relay/context.h"

namespace outboxd::daemon {
namespace {

int Failed(const absl::Status& status) {
  log::Error("{}", MessageOf(status));
  return ExitCodeFor(status);
}

void PrintSlot(const std::string& name, const pg::SlotInfo& s, std::FILE* out) {
  auto orNull = [](const std::string& v) { return v.empty() ? std::string("NULL") : v; };
  const std::string text = fmt::format(
      "slot {}\n  plugin               {}\n  database             {}\n"
      "  active               {}\n  restart_lsn          {}\n  confirmed_flush_lsn  {}\n"
      "  wal_status           {}\n  safe_wal_size        {}\n  retained WAL         {}\n",
      name, orNull(s.plugin), orNull(s.database),
      s.active ? Concat("yes (pid ", s.active_pid, ")") : std::string("no"), orNull(s.restart_lsn),
      orNull(s.confirmed_flush_lsn), orNull(s.wal_status),
      s.safe_wal_size ? pg::HumanBytes(*s.safe_wal_size) : "NULL (unbounded or lost)",
      s.retained_bytes ? pg::HumanBytes(*s.retained_bytes) : "unknown");
  std::fputs(text.c_str(), out);
}

int Status(pg::Connection& conn, const std::string& slot, std::FILE* out) {
  auto info = pg::LookupSlot(conn, slot);
  if (!info.ok()) return Failed(info.status());
  if (!info->has_value()) {
    std::fprintf(out,
                 "slot %s does not exist (outboxd slot create, or run with create_slot = "
                 "true, creates it)\n",
                 slot.c_str());
    return kExitServerSetup;
  }
  PrintSlot(slot, **info, out);
  return kExitOk;
}

// The first failure's exit code over every slot, else kExitOk.
template <typename Each>
int ForEachSlot(const config::Config& config, Each each) {
  int worst = kExitOk;
  for (const std::string& slot : config::SlotNames(config.postgres)) {
    const int code = each(slot);
    if (worst == kExitOk) worst = code;
  }
  return worst;
}

int Create(const config::Config& config, std::FILE* out) {
  auto conn = pg::Connection::Open(config.postgres.conninfo);
  if (!conn.ok()) return Failed(conn.status());
  for (int i = 0; i < config.postgres.parallel_slots; ++i) {
    pg::SetupOptions options = relay::SetupOptionsOf(config, i);
    options.create_missing = true;
    options.create_publication = true;
    auto identity = pg::PrepareReplication(*conn, options);
    if (!identity.ok()) return Failed(identity.status());
    std::fprintf(out, "publication %s and slot %s are ready\n", options.publication.c_str(),
                 options.slot.c_str());
  }
  return ForEachSlot(config, [&](const std::string& slot) { return Status(*conn, slot, out); });
}

// Deletes the slot's position record too: a slot dropped on purpose must not make the next
// `outboxd run` refuse (exit 7) for the missing slot. Best effort, reported.
void DeletePositionRecord(const config::Config& config, const std::string& slot, std::FILE* out) {
  auto store = position::PositionStore::Create(config.kafka);
  absl::Status status = store.ok() ? (*store)->Delete(slot) : store.status();
  if (!status.ok()) {
    log::Warn("could not delete the position record of slot {} in topic {}: {}", slot,
              position::kDefaultTopic, MessageOf(status));
    return;
  }
  std::fprintf(out, "deleted the position record of slot %s\n", slot.c_str());
}

int Drop(pg::Connection& conn, const config::Config& config, const std::string& slot,
         std::FILE* out) {
  auto info = pg::LookupSlot(conn, slot);
  if (!info.ok()) return Failed(info.status());
  if (!info->has_value()) {
    std::fprintf(out, "slot %s does not exist; nothing to drop\n", slot.c_str());
    DeletePositionRecord(config, slot, out);  // After a failover lost it: the recovery step.
    return kExitServerSetup;
  }
  if ((*info)->active) {
    log::Error("slot {} is in use by pid {} (a running outboxd?); stop it first, then drop", slot,
               (*info)->active_pid);
    return kExitServerSetup;
  }
  auto dropped =
      conn.Query(Concat("SELECT pg_drop_replication_slot(", conn.QuoteLiteral(slot), ")"),
                 "dropping the slot");
  if (!dropped.ok()) return Failed(dropped.status());
  std::fprintf(out, "dropped slot %s (its position was %s)\n", slot.c_str(),
               (*info)->confirmed_flush_lsn.c_str());
  DeletePositionRecord(config, slot, out);
  return kExitOk;
}

}  // namespace

int SlotCommand(const config::Config& config, std::string_view action, bool confirmed,
                std::FILE* out) {
  if (action == "create") return Create(config, out);
  if (action == "drop" && !confirmed) {
    log::Error(
        "slot drop discards slot {} and its confirmed position: events committed since then and "
        "not yet published are never published, and a new slot starts at \"now\"; add --yes "
        "to do it",
        fmt::join(config::SlotNames(config.postgres), ", "));
    return kExitUsage;
  }
  auto conn = pg::Connection::OpenOrdinary(config.postgres.conninfo, "outboxd slot");
  if (!conn.ok()) return Failed(conn.status());
  if (action == "drop") {
    return ForEachSlot(config,
                       [&](const std::string& slot) { return Drop(*conn, config, slot, out); });
  }
  return ForEachSlot(config, [&](const std::string& slot) { return Status(*conn, slot, out); });
}

}  // namespace outboxd::daemon
