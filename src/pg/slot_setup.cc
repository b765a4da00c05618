#include "pg/slot_setup.h"

#include <cstdlib>

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

std::string Display(const QualifiedTable& t) { return Concat(t.schema, ".", t.name); }

absl::Status CheckWalLevel(Connection& conn) {
  auto result = conn.Query("SHOW wal_level", "reading wal_level");
  if (!result.ok()) return result.status();
  const std::string_view level = Value(result->get(), 0, 0);
  if (level != "logical") {
    return absl::FailedPreconditionError(
        Concat("Postgres has wal_level = ", level,
               "; logical replication needs wal_level = logical: set it in postgresql.conf "
               "(ALTER SYSTEM SET wal_level = logical) and restart Postgres"));
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
  ServerIdentity id{.system_id = std::string(Value(r, 0, 0)),
                    .timeline = std::atoi(PQgetvalue(r, 0, 1)),
                    .wal_position = Lsn::Parse(Value(r, 0, 2)).value_or(Lsn()),
                    .database = std::string(Value(r, 0, 3))};
  return id;
}

absl::Status CheckTablesExist(Connection& conn, const SetupOptions& options) {
  for (const QualifiedTable& t : options.tables) {
    auto result = conn.Query(
        Concat("SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
               "ON n.oid = c.relnamespace WHERE n.nspname = ",
               conn.QuoteLiteral(t.schema), " AND c.relname = ", conn.QuoteLiteral(t.name),
               " AND c.relkind IN ('r', 'p')"),
        "looking up outbox table");
    if (!result.ok()) return result.status();
    if (PQntuples(result->get()) == 0) {
      return absl::FailedPreconditionError(
          Concat("outbox table ", Display(t), " does not exist in database ", conn.DatabaseName(),
                 "; create it (see the README's DDL) or fix [postgres] tables in the config"));
    }
  }
  return absl::OkStatus();
}

std::string CreatePublicationSql(Connection& conn, const SetupOptions& options) {
  std::vector<std::string> names;
  for (const QualifiedTable& t : options.tables) {
    names.push_back(Concat(conn.QuoteIdentifier(t.schema), ".", conn.QuoteIdentifier(t.name)));
  }
  return fmt::format("CREATE PUBLICATION {} FOR TABLE {} WITH (publish = 'insert')",
                     conn.QuoteIdentifier(options.publication), fmt::join(names, ", "));
}

absl::Status CreatePublication(Connection& conn, const SetupOptions& options) {
  const std::string sql = CreatePublicationSql(conn, options);
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
  // Another instance may have created it first; the checks below then accept it.
  if (Contains(MessageOf(created.status()), "already exists")) return absl::OkStatus();
  return created.status();
}

absl::Status CheckPublication(Connection& conn, const SetupOptions& options) {
  auto pub = conn.Query(Concat("SELECT pubinsert FROM pg_catalog.pg_publication WHERE "
                               "pubname = ",
                               conn.QuoteLiteral(options.publication)),
                        "looking up the publication");
  if (!pub.ok()) return pub.status();
  if (PQntuples(pub->get()) == 0) {
    if (!options.create_missing) {
      return absl::FailedPreconditionError(
          Concat("publication ", options.publication, " does not exist; create it with: ",
                 CreatePublicationSql(conn, options), " (or set create_slot = true)"));
    }
    if (auto s = CreatePublication(conn, options); !s.ok()) return s;
    return CheckPublication(conn, options);
  }
  if (Value(pub->get(), 0, 0) != "t") {
    return absl::FailedPreconditionError(Concat(
        "publication ", options.publication, " does not publish inserts; run: ALTER PUBLICATION ",
        conn.QuoteIdentifier(options.publication), " SET (publish = 'insert')"));
  }
  for (const QualifiedTable& t : options.tables) {
    auto covered =
        conn.Query(Concat("SELECT 1 FROM pg_catalog.pg_publication_tables WHERE pubname = ",
                          conn.QuoteLiteral(options.publication),
                          " AND schemaname = ", conn.QuoteLiteral(t.schema),
                          " AND tablename = ", conn.QuoteLiteral(t.name)),
                   "checking the publication's tables");
    if (!covered.ok()) return covered.status();
    if (PQntuples(covered->get()) == 0) {
      return absl::FailedPreconditionError(
          Concat("publication ", options.publication, " does not include ", Display(t),
                 "; run: ", "ALTER PUBLICATION ", conn.QuoteIdentifier(options.publication),
                 " ADD TABLE ", conn.QuoteIdentifier(t.schema), ".", conn.QuoteIdentifier(t.name)));
    }
  }
  return absl::OkStatus();
}

absl::Status CreateSlot(Connection& conn, const SetupOptions& options) {
  auto created = conn.Query(Concat("CREATE_REPLICATION_SLOT ", conn.QuoteIdentifier(options.slot),
                                   " LOGICAL pgoutput (SNAPSHOT 'nothing')"),
                            "creating the replication slot");
  if (created.ok()) {
    log::Info("created replication slot {} at {}; rows committed before now are not published",
              options.slot, Value(created->get(), 0, 1));
    return absl::OkStatus();
  }
  if (Contains(MessageOf(created.status()), "already exists")) return absl::OkStatus();
  if (Contains(MessageOf(created.status()), "all replication slots are in use")) {
    return absl::FailedPreconditionError(Concat(
        MessageOf(created.status()), "; raise max_replication_slots or drop an unused slot"));
  }
  return created.status();
}

absl::Status CheckSlot(Connection& conn, const SetupOptions& options) {
  auto slot = conn.Query(Concat("SELECT plugin, database, wal_status, slot_type FROM "
                                "pg_catalog.pg_replication_slots WHERE slot_name = ",
                                conn.QuoteLiteral(options.slot)),
                         "looking up the replication slot");
  if (!slot.ok()) return slot.status();
  const PGresult* r = slot->get();
  if (PQntuples(r) == 0) {
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
  if (Value(r, 0, 3) != "logical" || Value(r, 0, 0) != "pgoutput") {
    return absl::FailedPreconditionError(
        Concat("replication slot ", options.slot, " uses plugin '", Value(r, 0, 0),
               "', not pgoutput; use another [postgres] slot name or drop that slot"));
  }
  if (Value(r, 0, 1) != conn.DatabaseName()) {
    return absl::FailedPreconditionError(
        Concat("replication slot ", options.slot, " belongs to database ", Value(r, 0, 1), ", not ",
               conn.DatabaseName(), "; use another [postgres] slot name"));
  }
  if (Value(r, 0, 2) == "lost") {
    return LostSlotOr(conn, options.slot,
                      absl::UnavailableError(Concat("replication slot ", options.slot,
                                                    " showed wal_status = lost but could not be "
                                                    "read again; retrying")));
  }
  return absl::OkStatus();
}

}  // namespace

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
  auto identity = IdentifySystem(conn);
  if (!identity.ok()) return identity.status();
  if (auto s = CheckTablesExist(conn, options); !s.ok()) return s;
  if (auto s = CheckPublication(conn, options); !s.ok()) return s;
  if (auto s = CheckSlot(conn, options); !s.ok()) return s;
  return identity;
}

}  // namespace outboxd::pg
