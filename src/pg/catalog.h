#pragma once
// Catalog and settings queries shared by replication set-up (slot_setup.cc), `outboxd check`
// (server_checks.cc) and `outboxd slot`: one copy of each piece of SQL. Each works on an
// ordinary or a replication=database connection (simple query protocol only). Errors are
// those of Connection::Query.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "pg/connection.h"

namespace outboxd::pg {

struct QualifiedTable {
  std::string schema;
  std::string name;
  std::string ToString() const { return schema + "." + name; }
};

// The text SHOW gives for setting `name`, e.g. "logical", "10", "-1", "1GB".
absl::StatusOr<std::string> ShowSetting(Connection& conn, std::string_view name);

// The fix for wal_level != logical, quoted by set-up errors and `check`.
inline constexpr std::string_view kWalLevelFix =
    "set it in postgresql.conf (ALTER SYSTEM SET wal_level = logical) and restart Postgres";

struct RoleInfo {
  std::string name;
  bool replication = false;  // REPLICATION attribute (or superuser, which implies it).
  bool superuser = false;
};
absl::StatusOr<RoleInfo> CurrentRole(Connection& conn);

struct TableInfo {
  bool can_select = false;              // The current role may SELECT from it.
  bool owned = false;                   // The current role owns it (or is a member of its owner).
  std::vector<std::string> columns;     // Live columns, in order.
  std::vector<std::string> not_null;    // Those of them declared NOT NULL, in order.
  std::vector<uint32_t> type_oids;      // Parallel to columns: pg_attribute.atttypid.
  std::vector<std::string> type_names;  // Parallel to columns: format_type(), for messages.
};
// nullopt when `table` does not exist as an ordinary or partitioned table.
absl::StatusOr<std::optional<TableInfo>> LookupTable(Connection& conn, const QualifiedTable& table);

struct PublicationInfo {
  bool inserts = false;
  bool updates = false;
  bool deletes = false;
};
// nullopt when no publication `name` exists.
absl::StatusOr<std::optional<PublicationInfo>> LookupPublication(Connection& conn,
                                                                 std::string_view name);
absl::StatusOr<bool> PublicationIncludes(Connection& conn, std::string_view publication,
                                         const QualifiedTable& table);
// CREATE PUBLICATION ... FOR TABLE ... WITH (publish = 'insert'), identifiers quoted; table i
// with WHERE (`row_filters[i]`) where that is given and not empty (parallel slots,
// pg/partition.h).
std::string CreatePublicationSql(Connection& conn, std::string_view publication,
                                 const std::vector<QualifiedTable>& tables,
                                 const std::vector<std::string>& row_filters = {});
std::string AddTableSql(Connection& conn, std::string_view publication, const QualifiedTable& table,
                        std::string_view row_filter = {});

// One row of pg_replication_slots.
struct SlotInfo {
  std::string slot_type;  // logical, physical
  std::string plugin;
  std::string database;
  bool active = false;
  std::string active_pid;                 // Empty when inactive.
  std::string restart_lsn;                // As Postgres prints it; empty when NULL.
  std::string confirmed_flush_lsn;        // Empty when NULL.
  std::string wal_status;                 // reserved, extended, unreserved, lost; empty when NULL.
  std::optional<int64_t> safe_wal_size;   // NULL when max_slot_wal_keep_size = -1 or lost.
  std::optional<int64_t> retained_bytes;  // Current WAL position - restart_lsn; NULL on standby.
  bool synced = false;                    // Synchronized from a primary (PG 17+ failover slot).
};
// nullopt when no slot `name` exists.
absl::StatusOr<std::optional<SlotInfo>> LookupSlot(Connection& conn, std::string_view name);

// Number of replication slots and of WAL senders in use on the server.
absl::StatusOr<int> CountSlots(Connection& conn);
absl::StatusOr<int> CountWalSenders(Connection& conn);

}  // namespace outboxd::pg
