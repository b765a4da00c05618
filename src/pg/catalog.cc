#include "pg/catalog.h"

#include <cstdlib>

#include "common/strings.h"
#include "fmt/format.h"
#include "fmt/ranges.h"

namespace outboxd::pg {
namespace {

std::optional<int64_t> OptionalInt(const PGresult* r, int row, int col) {
  if (PQgetisnull(r, row, col)) return std::nullopt;
  return std::strtoll(PQgetvalue(r, row, col), nullptr, 10);
}

bool IsTrue(const PGresult* r, int row, int col) { return Value(r, row, col) == "t"; }

std::string QuotedTable(Connection& conn, const QualifiedTable& t) {
  return Concat(conn.QuoteIdentifier(t.schema), ".", conn.QuoteIdentifier(t.name));
}

absl::StatusOr<int> CountRows(Connection& conn, const std::string& sql, std::string_view what) {
  auto result = conn.Query(sql, what);
  if (!result.ok()) return result.status();
  const std::optional<int> count = ParseInt<int>(Value(result->get(), 0, 0));
  if (!count) return absl::DataLossError(Concat(what, ": the count is no number"));
  return *count;
}

}  // namespace

absl::StatusOr<std::string> ShowSetting(Connection& conn, std::string_view name) {
  auto result = conn.Query(Concat("SHOW ", name), Concat("reading ", name));
  if (!result.ok()) return result.status();
  return std::string(Value(result->get(), 0, 0));
}

absl::StatusOr<RoleInfo> CurrentRole(Connection& conn) {
  auto result = conn.Query(
      "SELECT rolname, rolreplication, rolsuper FROM pg_catalog.pg_roles "
      "WHERE rolname = current_user",
      "reading the role's attributes");
  if (!result.ok()) return result.status();
  const PGresult* r = result->get();
  if (PQntuples(r) != 1) return absl::InternalError("pg_roles has no row for current_user");
  return RoleInfo{.name = std::string(Value(r, 0, 0)),
                  .replication = IsTrue(r, 0, 1) || IsTrue(r, 0, 2),
                  .superuser = IsTrue(r, 0, 2)};
}

absl::StatusOr<std::optional<TableInfo>> LookupTable(Connection& conn,
                                                     const QualifiedTable& table) {
  auto found = conn.Query(
      Concat("SELECT c.oid, has_table_privilege(c.oid, 'SELECT'), "
             "pg_has_role(c.relowner, 'USAGE') FROM pg_catalog.pg_class c "
             "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ",
             conn.QuoteLiteral(table.schema), " AND c.relname = ", conn.QuoteLiteral(table.name),
             " AND c.relkind IN ('r', 'p')"),
      "looking up outbox table");
  if (!found.ok()) return found.status();
  const PGresult* r = found->get();
  if (PQntuples(r) == 0) return std::optional<TableInfo>();
  TableInfo info{.can_select = IsTrue(r, 0, 1),
                 .owned = IsTrue(r, 0, 2),
                 .columns = {},
                 .not_null = {},
                 .type_oids = {},
                 .type_names = {}};
  auto columns = conn.Query(
      Concat("SELECT attname, attnotnull, atttypid, pg_catalog.format_type(atttypid, atttypmod) "
             "FROM pg_catalog.pg_attribute WHERE attrelid = ",
             Value(r, 0, 0), " AND attnum > 0 AND NOT attisdropped ORDER BY attnum"),
      "reading the outbox table's columns");
  if (!columns.ok()) return columns.status();
  for (int i = 0; i < PQntuples(columns->get()); ++i) {
    info.columns.emplace_back(Value(columns->get(), i, 0));
    if (IsTrue(columns->get(), i, 1)) info.not_null.emplace_back(Value(columns->get(), i, 0));
    info.type_oids.push_back(static_cast<uint32_t>(
        std::strtoul(std::string(Value(columns->get(), i, 2)).c_str(), nullptr, 10)));
    info.type_names.emplace_back(Value(columns->get(), i, 3));
  }
  return std::optional<TableInfo>(std::move(info));
}

absl::StatusOr<std::optional<PublicationInfo>> LookupPublication(Connection& conn,
                                                                 std::string_view name) {
  auto pub = conn.Query(Concat("SELECT pubinsert, pubupdate, pubdelete FROM "
                               "pg_catalog.pg_publication WHERE pubname = ",
                               conn.QuoteLiteral(name)),
                        "looking up the publication");
  if (!pub.ok()) return pub.status();
  const PGresult* r = pub->get();
  if (PQntuples(r) == 0) return std::optional<PublicationInfo>();
  return std::optional<PublicationInfo>(PublicationInfo{
      .inserts = IsTrue(r, 0, 0), .updates = IsTrue(r, 0, 1), .deletes = IsTrue(r, 0, 2)});
}

absl::StatusOr<bool> PublicationIncludes(Connection& conn, std::string_view publication,
                                         const QualifiedTable& table) {
  auto covered = conn.Query(
      Concat("SELECT 1 FROM pg_catalog.pg_publication_tables WHERE pubname = ",
             conn.QuoteLiteral(publication), " AND schemaname = ", conn.QuoteLiteral(table.schema),
             " AND tablename = ", conn.QuoteLiteral(table.name)),
      "checking the publication's tables");
  if (!covered.ok()) return covered.status();
  return PQntuples(covered->get()) > 0;
}

std::string CreatePublicationSql(Connection& conn, std::string_view publication,
                                 const std::vector<QualifiedTable>& tables,
                                 const std::vector<std::string>& row_filters) {
  // A table-less outbox still needs a publication for pgoutput to start; an empty one is fine.
  if (tables.empty()) return Concat("CREATE PUBLICATION ", conn.QuoteIdentifier(publication));
  std::vector<std::string> names;
  names.reserve(tables.size());
  for (size_t i = 0; i < tables.size(); ++i) {
    const std::string_view filter = i < row_filters.size() ? row_filters[i] : std::string_view();
    names.push_back(filter.empty() ? QuotedTable(conn, tables[i])
                                   : Concat(QuotedTable(conn, tables[i]), " WHERE (", filter, ")"));
  }
  return fmt::format("CREATE PUBLICATION {} FOR TABLE {} WITH (publish = 'insert')",
                     conn.QuoteIdentifier(publication), fmt::join(names, ", "));
}

std::string AddTableSql(Connection& conn, std::string_view publication, const QualifiedTable& table,
                        std::string_view row_filter) {
  if (!row_filter.empty()) {
    return Concat("ALTER PUBLICATION ", conn.QuoteIdentifier(publication), " ADD TABLE ",
                  QuotedTable(conn, table), " WHERE (", row_filter, ")");
  }
  return Concat("ALTER PUBLICATION ", conn.QuoteIdentifier(publication), " ADD TABLE ",
                QuotedTable(conn, table));
}

absl::StatusOr<std::optional<SlotInfo>> LookupSlot(Connection& conn, std::string_view name) {
  // `synced` (a slot copied from the primary by slot synchronization) exists from PG 17.
  const std::string_view synced = PQserverVersion(conn.raw()) >= 170000 ? "synced" : "false";
  auto slot = conn.Query(
      Concat("SELECT slot_type, plugin, database, active, active_pid, restart_lsn, "
             "confirmed_flush_lsn, wal_status, safe_wal_size, CASE WHEN pg_is_in_recovery() "
             "THEN NULL ELSE pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint END, ",
             synced,
             " FROM pg_catalog.pg_replication_slots WHERE slot_name = ", conn.QuoteLiteral(name)),
      "looking up the replication slot");
  if (!slot.ok()) return slot.status();
  const PGresult* r = slot->get();
  if (PQntuples(r) == 0) return std::optional<SlotInfo>();
  return std::optional<SlotInfo>(SlotInfo{.slot_type = std::string(Value(r, 0, 0)),
                                          .plugin = std::string(Value(r, 0, 1)),
                                          .database = std::string(Value(r, 0, 2)),
                                          .active = IsTrue(r, 0, 3),
                                          .active_pid = std::string(Value(r, 0, 4)),
                                          .restart_lsn = std::string(Value(r, 0, 5)),
                                          .confirmed_flush_lsn = std::string(Value(r, 0, 6)),
                                          .wal_status = std::string(Value(r, 0, 7)),
                                          .safe_wal_size = OptionalInt(r, 0, 8),
                                          .retained_bytes = OptionalInt(r, 0, 9),
                                          .synced = IsTrue(r, 0, 10)});
}

absl::StatusOr<int> CountSlots(Connection& conn) {
  return CountRows(conn, "SELECT count(*) FROM pg_catalog.pg_replication_slots",
                   "counting replication slots");
}

absl::StatusOr<int> CountWalSenders(Connection& conn) {
  return CountRows(conn, "SELECT count(*) FROM pg_catalog.pg_stat_replication",
                   "counting WAL senders");
}

}  // namespace outboxd::pg
