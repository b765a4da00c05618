#include "pg/server_checks.h"

#include <algorithm>

#include "common/status.h"
#include "common/strings.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "pg/managed_postgres.h"
#include "pg/reshard.h"

namespace outboxd::pg {
namespace {

CheckResult FromError(std::string name, const absl::Status& status, std::string fix) {
  const bool permission = absl::IsPermissionDenied(status) || absl::IsUnauthenticated(status);
  return Fail(std::move(name), std::string(MessageOf(status)), std::move(fix), permission);
}

// Counted resources: `used` of `max` in use, `need` more wanted by `run`.
CheckResult CheckCapacity(std::string_view setting, int max, int used, int need,
                          std::string_view what) {
  const std::string detail = fmt::format("{} of {} {} in use", used, max, what);
  if (max - used >= need) {
    return Pass(std::string(setting), detail);
  }
  return Fail(std::string(setting), fmt::format("{}, outboxd needs {} more", detail, need),
              fmt::format("raise {} (ALTER SYSTEM SET {} = {}; restart Postgres) or free one",
                          setting, setting, used + need));
}

// "90 s", "30 min", "2 h", "1 d 6 h": a duration as an operator would say it.
std::string DurationText(int64_t seconds) {
  constexpr int64_t kHour = 3600;
  constexpr int64_t kDay = 24 * kHour;
  if (seconds < 120) return fmt::format("{} s", seconds);
  if (seconds < 2 * kHour) return fmt::format("{} min", seconds / 60);
  if (seconds < 2 * kDay) return fmt::format("{} h", seconds / kHour);
  return fmt::format("{} d {} h", seconds / kDay, seconds % kDay / kHour);
}

class ServerChecker {
 public:
  ServerChecker(Connection& conn, const ServerCheckOptions& options, CheckResults& out,
                ServerFlavour flavour = ServerFlavour::kSelfManaged)
      : conn_(conn), options_(options), out_(out), flavour_(flavour) {}

  void Run() {
    if (!CheckRole()) return;
    CheckSettings();
    for (const QualifiedTable& t : options_.tables) CheckTable(t);
    if (ReshardPending()) return;
    if (options_.partition.count > 1) {
      CheckParallelSlots();
      return;
    }
    CheckPublication();
    CheckSlot();
    CheckIdleSlotTimeout();
  }

 private:
  bool Ok(const absl::Status& status, std::string_view name) {
    if (status.ok()) return true;
    out_.push_back(FromError(std::string(name), status, "rerun check once this query works"));
    return false;
  }

  bool CheckRole() {
    auto role = CurrentRole(conn_);
    if (!Ok(role.status(), "role")) return false;
    role_ = *role;
    const std::string name = Concat("role ", role->name);
    auto member = HasManagedReplicationRole(conn_, flavour_);
    if (!Ok(member.status(), "role")) return false;
    if (!role->replication && !*member) {
      out_.push_back(Fail(name,
                          flavour_ == ServerFlavour::kAmazonRds ? "is no member of rds_replication"
                                                                : "has no REPLICATION attribute",
                          ReplicationFix(flavour_, conn_.QuoteIdentifier(role->name)),
                          /*permission=*/true));
      return true;
    }
    out_.push_back(Pass(name, role->superuser ? "superuser"
                              : *member       ? "member of rds_replication"
                                              : "has REPLICATION"));
    auto replication = Connection::Open(options_.conninfo);
    if (replication.ok()) {
      out_.push_back(Pass("replication connection", "replication=database accepted"));
    } else {
      out_.push_back(FromError("replication connection", replication.status(),
                               "allow it in pg_hba.conf for this database and user"));
    }
    return true;
  }

  void CheckSettings() {
    auto level = ShowSetting(conn_, "wal_level");
    if (Ok(level.status(), "wal_level")) {
      out_.push_back(*level == "logical"
                         ? Pass("wal_level", "logical")
                         : Fail("wal_level", Concat(*level, ", logical replication needs logical"),
                                WalLevelFix(flavour_)));
    }
    const int count = std::max(options_.partition.count, 1);
    int missing_slots = 0;
    for (int i = 0; i < count; ++i) {
      auto slot = LookupSlot(conn_, MemberName(options_.slot, count, i));
      if (!Ok(slot.status(), "slot")) return;
      if (count == 1) slot_ = *slot;
      if (!slot->has_value()) ++missing_slots;
    }
    auto max_slots = ShowSetting(conn_, "max_replication_slots");
    auto used_slots = CountSlots(conn_);
    if (Ok(max_slots.status(), "max_replication_slots") &&
        Ok(used_slots.status(), "max_replication_slots")) {
      out_.push_back(CheckCapacity("max_replication_slots", ParseInt<int>(*max_slots).value_or(0),
                                   *used_slots, missing_slots, "slots"));
    }
    auto max_senders = ShowSetting(conn_, "max_wal_senders");
    auto used_senders = CountWalSenders(conn_);
    if (Ok(max_senders.status(), "max_wal_senders") &&
        Ok(used_senders.status(), "max_wal_senders")) {
      out_.push_back(CheckCapacity("max_wal_senders", ParseInt<int>(*max_senders).value_or(0),
                                   *used_senders, count, "WAL senders"));
    }
    auto keep = ShowSetting(conn_, "max_slot_wal_keep_size");
    if (!Ok(keep.status(), "max_slot_wal_keep_size")) return;
    if (*keep == "-1") {
      out_.push_back(Warn(
          "max_slot_wal_keep_size", "-1: a slot nobody consumes keeps WAL until the disk is full",
          "bound it, e.g. ALTER SYSTEM SET max_slot_wal_keep_size = '10GB'; SELECT "
          "pg_reload_conf(); and alert on the slot's safe_wal_size (a slot past the bound is "
          "invalidated and outboxd stops rather than skip events)"));
    } else {
      out_.push_back(Pass("max_slot_wal_keep_size",
                          Concat(*keep, ": a slot more than this behind is invalidated")));
    }
  }

  // PostgreSQL 18 invalidates a slot that no walsender has streamed for
  // idle_replication_slot_timeout (at a checkpoint): a stop of outboxd longer than that loses
  // the events after the slot's position. Nothing to say before 18 (no such setting) or at 0.
  void CheckIdleSlotTimeout() {
    auto setting = conn_.Query(
        "SELECT setting, unit FROM pg_catalog.pg_settings "
        "WHERE name = 'idle_replication_slot_timeout'",
        "reading idle_replication_slot_timeout");
    if (!Ok(setting.status(), "idle_replication_slot_timeout")) return;
    const PGresult* r = setting->get();
    if (PQntuples(r) == 0) return;
    const int64_t value = ParseInt<int64_t>(Value(r, 0, 0)).value_or(0);
    const int64_t seconds = Value(r, 0, 1) == "min" ? value * 60 : value;
    constexpr std::string_view kName = "idle_replication_slot_timeout";
    if (seconds <= 0) {
      out_.push_back(Pass(std::string(kName), "0: slots are not invalidated for being idle"));
      return;
    }
    // The restart plan it is measured against (packaging/outboxd.service.in: RestartSec=5s;
    // a standby's retries back off to 10 s, docs/operating.md "Active/standby").
    constexpr int64_t kRestartSeconds = 5;
    constexpr int64_t kStandbyTakeoverSeconds = 10;
    std::string detail = fmt::format(
        "{} ({} s): Postgres invalidates slot {} at a checkpoint once no outboxd has streamed it "
        "that long, and the events after its position are then lost; a crash costs about {} s "
        "(systemd restarts it) and a standby takes over within {} s, {}, but a stop that waits "
        "for an operator (exit codes 2-7), an upgrade or a host down without a standby must end "
        "within {}",
        DurationText(seconds), seconds, options_.slot, kRestartSeconds, kStandbyTakeoverSeconds,
        seconds > kRestartSeconds + kStandbyTakeoverSeconds
            ? "inside it"
            : "NOT inside it: an ordinary restart can lose the slot",
        DurationText(seconds));
    if (auto idle = SlotIdleSeconds(); idle.has_value()) {
      detail += fmt::format(
          "; slot {} has been idle for {} s, so it {}", options_.slot, *idle,
          *idle >= seconds ? "is invalidated at the next checkpoint"
                           : fmt::format("is invalidated in {} s unless outboxd streams it first",
                                         seconds - *idle));
    }
    out_.push_back(
        Warn(std::string(kName), detail,
             fmt::format("keep stops shorter than {} and alert when no instance is ready "
                         "(outboxd_ready) well before, or turn it off for this server: ALTER "
                         "SYSTEM SET idle_replication_slot_timeout = 0; SELECT pg_reload_conf()",
                         DurationText(seconds))));
  }

  // Whole seconds since slot options_.slot was last streamed (pg_replication_slots
  // .inactive_since, PG 17+); nullopt while streamed, when it does not exist, or on error.
  std::optional<int64_t> SlotIdleSeconds() {
    auto idle =
        conn_.Query(Concat("SELECT floor(extract(epoch FROM now() - inactive_since))::bigint "
                           "FROM pg_catalog.pg_replication_slots WHERE slot_name = ",
                           conn_.QuoteLiteral(options_.slot), " AND inactive_since IS NOT NULL"),
                    "reading the slot's inactive_since");
    if (!idle.ok() || PQntuples(idle->get()) == 0) return std::nullopt;
    return ParseInt<int64_t>(Value(idle->get(), 0, 0));
  }

  void CheckTable(const QualifiedTable& t) {
    const std::string name = Concat("table ", t.ToString());
    auto table = LookupTable(conn_, t);
    if (!Ok(table.status(), name)) return;
    if (!table->has_value()) {
      all_tables_owned_ = false;
      out_.push_back(Fail(name, Concat("does not exist in database ", conn_.DatabaseName()),
                          "create it (see the README's DDL) or fix [postgres] tables"));
      return;
    }
    const TableInfo& info = **table;
    all_tables_owned_ = all_tables_owned_ && info.owned;
    std::vector<std::string> missing;
    for (const auto& [column, key] : options_.columns) {
      if (std::find(info.columns.begin(), info.columns.end(), column) == info.columns.end()) {
        missing.push_back(Concat(column, " (", key, ")"));
      }
    }
    if (!missing.empty()) {
      out_.push_back(Fail(name, fmt::format("has no column {}", fmt::join(missing, ", ")),
                          "add the column, or set the config key to a column the table has"));
    } else {
      out_.push_back(
          Pass(name, fmt::format("exists with columns {}", fmt::join(info.columns, ", "))));
    }
    if (options_.check_table) {
      if (std::optional<CheckResult> failure = options_.check_table(t, info)) {
        out_.push_back(std::move(*failure));
      }
    }
    if (!info.can_select) {
      out_.push_back(
          Fail(Concat("SELECT on ", t.ToString()), Concat("role ", role_.name, " may not read it"),
               Concat("GRANT SELECT ON ", conn_.QuoteIdentifier(t.schema), ".",
                      conn_.QuoteIdentifier(t.name), " TO ", conn_.QuoteIdentifier(role_.name)),
               /*permission=*/true));
    } else {
      out_.push_back(Pass(Concat("SELECT on ", t.ToString()), "granted"));
    }
  }

  void CheckPublication() {
    const std::string name = Concat("publication ", options_.publication);
    auto pub = LookupPublication(conn_, options_.publication);
    if (!Ok(pub.status(), name)) return;
    auto filters = PartitionFilters(conn_, options_.tables, options_.partition);
    if (!filters.ok()) {
      out_.push_back(FromError(name, filters.status(), ""));
      return;
    }
    const std::string create =
        CreatePublicationSql(conn_, options_.publication, options_.tables, *filters);
    if (!pub->has_value()) {
      if (!options_.create_missing || !options_.create_publication) {
        const std::string_view key = options_.create_missing ? "create_publication" : "create_slot";
        out_.push_back(Fail(name, Concat("does not exist and ", key, " = false"),
                            Concat("create it: ", create, " (or set ", key, " = true)")));
      } else if (!all_tables_owned_ && !role_.superuser) {
        out_.push_back(Fail(name,
                            "does not exist, and run cannot create it: the role does not "
                            "own every outbox table",
                            Concat("as the tables' owner or a superuser: ", create),
                            /*permission=*/true));
      } else {
        out_.push_back(Pass(name, "does not exist; run will create it (inserts only)"));
      }
      return;
    }
    if (!(*pub)->inserts) {
      out_.push_back(Fail(name, "does not publish inserts",
                          Concat("ALTER PUBLICATION ", conn_.QuoteIdentifier(options_.publication),
                                 " SET (publish = 'insert')")));
      return;
    }
    std::vector<std::string> fixes;
    for (size_t i = 0; i < options_.tables.size(); ++i) {
      const QualifiedTable& t = options_.tables[i];
      auto covered = PublicationIncludes(conn_, options_.publication, t);
      if (!Ok(covered.status(), name)) return;
      if (!*covered) {
        fixes.push_back(
            AddTableSql(conn_, options_.publication, t, i < filters->size() ? (*filters)[i] : ""));
      }
    }
    if (!fixes.empty()) {
      out_.push_back(Fail(name, "does not include every outbox table",
                          fmt::format("run: {}", fmt::join(fixes, "; "))));
    } else if ((*pub)->updates || (*pub)->deletes) {
      out_.push_back(
          Warn(name, "covers the tables but publishes updates/deletes too",
               Concat("Postgres then decodes and sends changes outboxd ignores: ALTER "
                      "PUBLICATION ",
                      conn_.QuoteIdentifier(options_.publication), " SET (publish = 'insert')")));
    } else if (auto s = CheckPublicationFilter(conn_, options_.publication, options_.tables,
                                               options_.partition);
               !s.ok()) {
      out_.push_back(FromError(name, s, ""));
    } else {
      out_.push_back(Pass(name, filters->empty() ? "covers the tables, inserts only"
                                                 : Concat("covers the tables, inserts only, WHERE ",
                                                          filters->front())));
    }
  }

  // True when the slots that exist are another count than the configured one: `run` reshards
  // first (pg/reshard.h), creating the configured slots, so their checks would say nothing.
  bool ReshardPending() {
    if (!options_.create_missing) return false;
    const SlotFamily configured{.slot = options_.slot,
                                .publication = options_.publication,
                                .count = options_.partition.count};
    auto existing = ListReshardSlots(conn_, configured);
    if (!Ok(existing.status(), "resharding")) return true;
    auto step = PlanReshardStep(configured, *existing);
    if (!step.ok()) {
      out_.push_back(FromError("resharding", step.status(), ""));
      return true;
    }
    if (!step->hop && step->drop.empty()) return false;
    std::vector<std::string> slots = *existing;
    std::sort(slots.begin(), slots.end());
    if (auto s = CheckRowFilterSupport(PQserverVersion(conn_.raw()), configured.count); !s.ok()) {
      out_.push_back(FromError("resharding", s, ""));
      return true;
    }
    out_.push_back(Pass(
        "resharding", fmt::format("slots {} exist: run moves them to parallel_slots = {} before it "
                                  "streams, losing nothing (docs/operating.md, \"Resharding\")",
                                  fmt::join(slots, ", "), configured.count)));
    return true;
  }

  // PG 15+ and the slot family, then each slot's publication and slot, as for one slot.
  void CheckParallelSlots() {
    const Partition& p = options_.partition;
    const std::string name = Concat("parallel_slots = ", p.count);
    if (auto s = CheckRowFilterSupport(PQserverVersion(conn_.raw()), p.count); !s.ok()) {
      out_.push_back(FromError(name, s, ""));
      return;
    }
    if (auto s = CheckSlotFamily(conn_, p); !s.ok()) {
      out_.push_back(FromError(name, s, ""));
      return;
    }
    out_.push_back(Pass(name, Concat("slots ", MemberName(options_.slot, p.count, 0), " to ",
                                     MemberName(options_.slot, p.count, p.count - 1),
                                     ", row filters on a hash of ", p.key_column)));
    for (int i = 0; i < p.count; ++i) {
      ServerCheckOptions member = options_;
      member.slot = MemberName(options_.slot, p.count, i);
      member.publication = MemberName(options_.publication, p.count, i);
      member.partition.index = i;
      ServerChecker checker(conn_, member, out_);
      checker.role_ = role_;
      checker.all_tables_owned_ = all_tables_owned_;
      checker.CheckMember();
    }
  }

  // One parallel slot's publication and slot.
  void CheckMember() {
    auto slot = LookupSlot(conn_, options_.slot);
    if (!Ok(slot.status(), "slot")) return;
    slot_ = *slot;
    CheckPublication();
    CheckSlot();
    CheckIdleSlotTimeout();
  }

  void CheckSlot();

  Connection& conn_;
  const ServerCheckOptions& options_;
  CheckResults& out_;
  const ServerFlavour flavour_;
  RoleInfo role_;
  std::optional<SlotInfo> slot_;
  bool all_tables_owned_ = true;
};

void ServerChecker::CheckSlot() {
  const std::string name = Concat("slot ", options_.slot);
  if (!slot_.has_value()) {
    if (options_.create_missing) {
      out_.push_back(Pass(name,
                          "does not exist; run will create it (rows committed before that "
                          "are not published)"));
    } else {
      out_.push_back(Fail(name, "does not exist and create_slot = false",
                          Concat("create it: SELECT pg_create_logical_replication_slot('",
                                 options_.slot, "', 'pgoutput') (or outboxd slot create)")));
    }
    return;
  }
  const SlotInfo& s = *slot_;
  if (s.slot_type != "logical" || s.plugin != "pgoutput") {
    out_.push_back(Fail(name, Concat("is a ", s.slot_type, " slot with plugin '", s.plugin, "'"),
                        "use another [postgres] slot name, or drop that slot"));
    return;
  }
  if (s.database != conn_.DatabaseName()) {
    out_.push_back(Fail(name,
                        Concat("belongs to database ", s.database, ", not ", conn_.DatabaseName()),
                        "use another [postgres] slot name"));
    return;
  }
  std::string detail =
      fmt::format("pgoutput, {}, wal_status {}, confirmed {}, retains {}",
                  s.active ? Concat("active (pid ", s.active_pid, ")") : std::string("inactive"),
                  s.wal_status.empty() ? "NULL" : s.wal_status,
                  s.confirmed_flush_lsn.empty() ? "none" : s.confirmed_flush_lsn,
                  s.retained_bytes ? HumanBytes(*s.retained_bytes) : "unknown");
  if (s.safe_wal_size) detail += Concat(", safe_wal_size ", HumanBytes(*s.safe_wal_size));
  if (s.wal_status == "lost") {
    out_.push_back(Fail(name, Concat(detail, ": invalidated, the WAL it needed is gone"),
                        Concat("events after its confirmed position are lost: drop it "
                               "(outboxd slot drop --yes), let run create a new one, and "
                               "reconcile the gap from the outbox table")));
  } else if (s.wal_status == "unreserved") {
    out_.push_back(Warn(name, Concat(detail, ": past max_slot_wal_keep_size"),
                        "it is invalidated at the next checkpoint unless outboxd catches up now"));
  } else {
    out_.push_back(Pass(name, detail));
  }
}

}  // namespace

std::string HumanBytes(int64_t bytes) {
  const double b = static_cast<double>(bytes);
  const double abs = b < 0 ? -b : b;
  if (abs >= 1024.0 * 1024 * 1024)
    return fmt::format("{:.1f} GiB ({} bytes)", b / (1 << 30), bytes);
  if (abs >= 1024.0 * 1024) return fmt::format("{:.1f} MiB ({} bytes)", b / (1 << 20), bytes);
  if (abs >= 1024.0) return fmt::format("{:.1f} KiB ({} bytes)", b / 1024, bytes);
  return fmt::format("{} bytes", bytes);
}

CheckResults CheckServer(const ServerCheckOptions& options) {
  CheckResults out;
  auto conn = Connection::OpenOrdinary(options.conninfo, "outboxd check");
  if (!conn.ok()) {
    out.push_back(FromError("postgres connection", conn.status(),
                            "fix [postgres] conninfo (host, port, dbname, user, password) or the "
                            "server's pg_hba.conf"));
    return out;
  }
  auto version = ShowSetting(*conn, "server_version");
  // A failed look-up only loses the service's own wording in the fixes below.
  const ServerFlavour flavour = DetectFlavour(*conn).value_or(ServerFlavour::kSelfManaged);
  out.push_back(
      Pass("postgres connection",
           Concat("database ", conn->DatabaseName(), ", PostgreSQL ",
                  version.ok() ? *version : std::string("(version unknown)"),
                  flavour == ServerFlavour::kSelfManaged ? std::string()
                                                         : Concat(" on ", FlavourName(flavour)))));
  ServerChecker(*conn, options, out, flavour).Run();
  return out;
}

}  // namespace outboxd::pg
