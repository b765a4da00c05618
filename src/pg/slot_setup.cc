#include "pg/slot_setup.h"

#include <optional>

#include "absl/status/status.h"
#include "common/log.h"
#include "common/status.h"
#include "common/strings.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "pg/slot_state.h"
#include "pg/slot_verdict.h"

namespace outboxd::pg {
namespace {

// The SQLSTATEs set-up matches; the server translates its messages per lc_messages.
constexpr std::string_view kDuplicateObject = "42710";
constexpr std::string_view kUniqueViolation = "23505";
constexpr std::string_view kConfigurationLimitExceeded = "53400";

std::string Display(const QualifiedTable& t) { return Concat(t.schema, ".", t.name); }

absl::Status CheckWalLevel(Connection& conn) {
  auto level = ShowSetting(conn, "wal_level");
  if (!level.ok()) return level.status();
  if (*level != "logical") {
    return absl::FailedPreconditionError(
        Concat("Postgres has wal_level = ", *level,
               "; logical replication needs wal_level = logical: ", kWalLevelFix));
  }
  return absl::OkStatus();
}

absl::StatusOr<ServerIdentity> IdentifySystem(Connection& conn) {
  auto result = conn.Query("IDENTIFY_SYSTEM", "IDENTIFY_SYSTEM");
  if (!result.ok()) return result.status();
  const PGresult* r = result->get();
  if (PQntuples(r) != 1 || PQnfields(r) < 4) {
    return absl::DataLossError("IDENTIFY_SYSTEM returned an unexpected shape");
  }
  const std::optional<int> timeline = ParseInt<int>(Value(r, 0, 1));
  if (!timeline)
    return absl::DataLossError("IDENTIFY_SYSTEM returned a timeline that is no number");
  ServerIdentity id{.system_id = std::string(Value(r, 0, 0)),
                    .timeline = *timeline,
                    .wal_position = Lsn::Parse(Value(r, 0, 2)).value_or(Lsn()),
                    .database = std::string(Value(r, 0, 3))};
  return id;
}

absl::Status CheckTablesExist(Connection& conn, const SetupOptions& options) {
  for (const QualifiedTable& t : options.tables) {
    auto table = LookupTable(conn, t);
    if (!table.ok()) return table.status();
    if (!table->has_value()) {
      return absl::FailedPreconditionError(
          Concat("outbox table ", Display(t), " does not exist in database ", conn.DatabaseName(),
                 "; create it (see the README's DDL) or fix [postgres] tables in the config"));
    }
  }
  return absl::OkStatus();
}

// Each table's row filter for this stream's publication; none with one slot.
std::vector<std::string> RowFiltersOf(Connection& conn, const SetupOptions& options,
                                      absl::Status& status) {
  auto filters = PartitionFilters(conn, options.tables, options.partition);
  if (!filters.ok()) {
    status = filters.status();
    return {};
  }
  return *std::move(filters);
}

std::string CreatePublicationSql(Connection& conn, const SetupOptions& options,
                                 const std::vector<std::string>& filters) {
  return pg::CreatePublicationSql(conn, options.publication, options.tables, filters);
}

bool InRecovery(Connection& conn);

absl::Status CreatePublication(Connection& conn, const SetupOptions& options,
                               const std::vector<std::string>& filters) {
  const std::string sql = CreatePublicationSql(conn, options, filters);
  if (InRecovery(conn)) {
    // Decoding on a standby (PG 16+): the catalog is the primary's, read-only here.
    return absl::FailedPreconditionError(
        Concat("publication ", options.publication,
               " does not exist and this server is a "
               "standby, where it cannot be created; run on the primary: ",
               sql));
  }
  auto created = conn.Query(sql, "creating the publication");
  if (created.ok()) {
    log::Info("created publication {} (inserts only)", options.publication);
    return absl::OkStatus();
  }
  if (absl::IsPermissionDenied(created.status())) {
    return absl::PermissionDeniedError(Concat(MessageOf(created.status()),
                                              "; the outboxd role must own the outbox tables ",
                                              "to publish them: run as a superuser: ", sql));
  }
  return JudgePublicationCreateFailure(created.status());
}

absl::Status CheckPublication(Connection& conn, const SetupOptions& options) {
  absl::Status filtered;
  const std::vector<std::string> filters = RowFiltersOf(conn, options, filtered);
  if (!filtered.ok()) return filtered;
  auto pub = LookupPublication(conn, options.publication);
  if (!pub.ok()) return pub.status();
  if (!pub->has_value()) {
    if (!options.create_missing || !options.create_publication) {
      return absl::FailedPreconditionError(
          Concat("publication ", options.publication,
                 " does not exist; create it with: ", CreatePublicationSql(conn, options, filters),
                 options.create_missing ? " (or set create_publication = true)"
                                        : " (or set create_slot = true)"));
    }
    if (auto s = CreatePublication(conn, options, filters); !s.ok()) return s;
    return CheckPublication(conn, options);
  }
  if (!(*pub)->inserts) {
    return absl::FailedPreconditionError(Concat(
        "publication ", options.publication, " does not publish inserts; run: ALTER PUBLICATION ",
        conn.QuoteIdentifier(options.publication), " SET (publish = 'insert')"));
  }
  for (size_t i = 0; i < options.tables.size(); ++i) {
    const QualifiedTable& t = options.tables[i];
    auto covered = PublicationIncludes(conn, options.publication, t);
    if (!covered.ok()) return covered.status();
    if (!*covered) {
      return absl::FailedPreconditionError(
          Concat("publication ", options.publication, " does not include ", Display(t), "; run: ",
                 AddTableSql(conn, options.publication, t, i < filters.size() ? filters[i] : "")));
    }
  }

  return CheckPublicationFilter(conn, options.publication, options.tables, options.partition);
}

// True when the server is a standby: a slot made there cannot be a failover slot.
bool InRecovery(Connection& conn) {
  auto r = conn.Query("SELECT pg_catalog.pg_is_in_recovery()", "checking for a standby");
  return r.ok() && PQntuples(r->get()) == 1 && Value(r->get(), 0, 0) == "t";
}

}  // namespace

std::string CreateSlotCommand(std::string_view quoted_slot, int server_version, bool standby) {
  // The parenthesised option list is PG 15+ grammar; 14 only knows the bare keyword form
  // (NOEXPORT_SNAPSHOT = SNAPSHOT 'nothing'). On 17+ a slot made on the primary is a failover
  // slot, so a standby with sync_replication_slots keeps a copy that survives a promotion.
  if (server_version < 150000) {
    return Concat("CREATE_REPLICATION_SLOT ", quoted_slot, " LOGICAL pgoutput NOEXPORT_SNAPSHOT");
  }
  const std::string_view failover = server_version >= 170000 && !standby ? ", FAILOVER" : "";
  return Concat("CREATE_REPLICATION_SLOT ", quoted_slot, " LOGICAL pgoutput (SNAPSHOT 'nothing'",
                failover, ")");
}

namespace {

absl::Status CreateSlot(Connection& conn, const SetupOptions& options) {
  const std::string command = CreateSlotCommand(conn.QuoteIdentifier(options.slot),
                                                PQserverVersion(conn.raw()), InRecovery(conn));
  auto created = conn.Query(command, "creating the replication slot");
  if (created.ok()) {
    log::Info("created replication slot {} at {}; rows committed before now are not published",
              options.slot, Value(created->get(), 0, 1));
    return absl::OkStatus();
  }
  return JudgeSlotCreateFailure(created.status());
}

absl::Status CheckSlot(Connection& conn, const SetupOptions& options) {
  auto slot = LookupSlot(conn, options.slot);
  if (!slot.ok()) return slot.status();
  if (!slot->has_value()) {
    if (!options.create_missing) {
      return absl::FailedPreconditionError(Concat("replication slot ", options.slot,
                                                  " does not exist; create it with SELECT "
                                                  "pg_create_logical_replication_slot('",
                                                  options.slot,
                                                  "', 'pgoutput') or set "
                                                  "create_slot = true"));
    }
    if (auto s = CreateSlot(conn, options); !s.ok()) return s;
    return CheckSlot(conn, options);
  }
  const SlotInfo& info = **slot;
  if (info.slot_type != "logical" || info.plugin != "pgoutput") {
    return absl::FailedPreconditionError(
        Concat("replication slot ", options.slot, " uses plugin '", info.plugin,
               "', not pgoutput; use another [postgres] slot name or drop that slot"));
  }
  if (info.database != conn.DatabaseName()) {
    return absl::FailedPreconditionError(
        Concat("replication slot ", options.slot, " belongs to database ", info.database, ", not ",
               conn.DatabaseName(), "; use another [postgres] slot name"));
  }
  if (info.wal_status == "lost") {
    return LostSlotOr(conn, options.slot,
                      absl::UnavailableError(Concat("replication slot ", options.slot,
                                                    " showed wal_status = lost but could not be "
                                                    "read again; retrying")));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status JudgePublicationCreateFailure(absl::Status failure) {
  // Another instance may have created it first; the checks below then accept it. A create
  // that raced it to the catalog's unique index fails with unique_violation instead.
  const std::string sqlstate = SqlStateOf(failure);
  if (sqlstate == kDuplicateObject || sqlstate == kUniqueViolation) return absl::OkStatus();
  return failure;
}

absl::Status JudgeSlotCreateFailure(absl::Status failure) {
  const std::string sqlstate = SqlStateOf(failure);
  if (sqlstate == kDuplicateObject) return absl::OkStatus();
  if (sqlstate == kConfigurationLimitExceeded) {  // max_replication_slots reached.
    return absl::FailedPreconditionError(
        Concat(MessageOf(failure), "; raise max_replication_slots or drop an unused slot"));
  }
  return failure;
}

absl::Status LostSlotOr(Connection& conn, std::string_view slot, absl::Status failure) {
  auto result = conn.Query(SlotStateSql(conn.QuoteLiteral(slot), PQserverVersion(conn.raw())),
                           "reading the replication slot's state");
  if (!result.ok()) return failure;
  auto state = ParseSlotState(result->get());
  if (!state.ok() || !state->exists) return failure;
  const SlotVerdict verdict = JudgeSlot(*state, SlotPolicy{.slot = std::string(slot)}, {});
  if (verdict.risk != SlotRisk::kLost) return failure;
  return absl::AbortedError(verdict.detail);
}

absl::StatusOr<ServerIdentity> PrepareReplication(Connection& conn, const SetupOptions& options) {
  if (auto s = CheckWalLevel(conn); !s.ok()) return s;
  if (auto s = CheckRowFilterSupport(PQserverVersion(conn.raw()), options.partition.count);
      !s.ok()) {
    return s;
  }
  auto identity = IdentifySystem(conn);
  if (!identity.ok()) return identity.status();
  if (auto s = CheckTablesExist(conn, options); !s.ok()) return s;
  if (auto s = CheckPublication(conn, options); !s.ok()) return s;
  // Before this stream's slot may be created: a family of another count means resharding.
  if (!options.partition.base_slot.empty()) {
    if (auto s = CheckSlotFamily(conn, options.partition); !s.ok()) return s;
  }
  if (options.resume_check) {
    auto slot = LookupSlot(conn, options.slot);
    if (!slot.ok()) return slot.status();
    if (auto s = options.resume_check(*identity, *slot); !s.ok()) return s;
  }
  if (auto s = CheckSlot(conn, options); !s.ok()) return s;
  return identity;
}

}  // namespace outboxd::pg
