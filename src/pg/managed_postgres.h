#pragma once
// Managed Postgres services refuse ALTER SYSTEM and turn logical replication on their own way
// (a parameter group, a database flag, a server parameter) and grant it through their own admin
// roles. `outboxd check` (server_checks.cc) recognises the service from what only it defines in
// pg_settings and pg_roles, and names that service's fix. The flavour and fix functions are pure.

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "pg/connection.h"

namespace outboxd::pg {

enum class ServerFlavour {
  kSelfManaged,    // None of the settings or roles below: postgresql.conf and ALTER SYSTEM.
  kAmazonRds,      // Amazon RDS for PostgreSQL and Aurora PostgreSQL.
  kCloudSql,       // Google Cloud SQL for PostgreSQL.
  kAzureFlexible,  // Azure Database for PostgreSQL Flexible Server.
};

// The service, from the names of the settings in pg_settings and the roles in pg_roles that the
// server has (any others in the lists are ignored). A service's own settings decide before its
// roles, since a self-managed server restored from a dump may carry e.g. rds_superuser.
ServerFlavour FlavourFrom(const std::vector<std::string>& setting_names,
                          const std::vector<std::string>& role_names);

// "Amazon RDS/Aurora", ...; "self-managed" for kSelfManaged.
std::string_view FlavourName(ServerFlavour flavour);

// The fix for wal_level != logical on that service: kWalLevelFix (pg/catalog.h) when
// self-managed.
std::string WalLevelFix(ServerFlavour flavour);

// The fix for a role that may not replicate; `quoted_role` is already quoted as an identifier.
std::string ReplicationFix(ServerFlavour flavour, std::string_view quoted_role);

// Reads the telltale settings and roles and returns FlavourFrom() of them.
absl::StatusOr<ServerFlavour> DetectFlavour(Connection& conn);

// On RDS/Aurora replication is granted by membership of rds_replication, not by the REPLICATION
// attribute: true when the current role is a member (directly or through rds_superuser). False
// on other services or when that role does not exist.
absl::StatusOr<bool> HasManagedReplicationRole(Connection& conn, ServerFlavour flavour);

}  // namespace outboxd::pg
