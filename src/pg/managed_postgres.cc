#include "pg/managed_postgres.h"

#include <algorithm>

#include "common/strings.h"
#include "pg/catalog.h"

namespace outboxd::pg {
namespace {

bool Has(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

ServerFlavour FlavourFrom(const std::vector<std::string>& setting_names,
                          const std::vector<std::string>& role_names) {
  if (Has(setting_names, "rds.extensions") || Has(setting_names, "rds.logical_replication")) {
    return ServerFlavour::kAmazonRds;
  }
  if (Has(setting_names, "cloudsql.logical_decoding") ||
      Has(setting_names, "cloudsql.iam_authentication")) {
    return ServerFlavour::kCloudSql;
  }
  if (Has(setting_names, "azure.extensions")) return ServerFlavour::kAzureFlexible;
  if (Has(role_names, "rds_superuser")) return ServerFlavour::kAmazonRds;
  if (Has(role_names, "cloudsqlsuperuser")) return ServerFlavour::kCloudSql;
  if (Has(role_names, "azure_pg_admin")) return ServerFlavour::kAzureFlexible;
  return ServerFlavour::kSelfManaged;
}

std::string_view FlavourName(ServerFlavour flavour) {
  switch (flavour) {
    case ServerFlavour::kSelfManaged:
      return "self-managed";
    case ServerFlavour::kAmazonRds:
      return "Amazon RDS/Aurora";
    case ServerFlavour::kCloudSql:
      return "Google Cloud SQL";
    case ServerFlavour::kAzureFlexible:
      return "Azure Database for PostgreSQL Flexible Server";
  }
  return "unknown";
}

std::string WalLevelFix(ServerFlavour flavour) {
  switch (flavour) {
    case ServerFlavour::kSelfManaged:
      return std::string(kWalLevelFix);
    case ServerFlavour::kAmazonRds:
      return "Amazon RDS/Aurora refuses ALTER SYSTEM: set rds.logical_replication = 1 in a custom "
             "DB parameter group (the DB cluster parameter group on Aurora), attach it to the "
             "instance and reboot it";
    case ServerFlavour::kCloudSql:
      return "Google Cloud SQL refuses ALTER SYSTEM: set the database flag "
             "cloudsql.logical_decoding = on (gcloud sql instances patch INSTANCE "
             "--database-flags=cloudsql.logical_decoding=on; this restarts the instance)";
    case ServerFlavour::kAzureFlexible:
      return "Azure Flexible Server refuses ALTER SYSTEM: set the server parameter wal_level to "
             "logical (az postgres flexible-server parameter set --name wal_level --value "
             "logical) and restart the server";
  }
  return std::string(kWalLevelFix);
}

std::string ReplicationFix(ServerFlavour flavour, std::string_view quoted_role) {
  switch (flavour) {
    case ServerFlavour::kSelfManaged:
      return Concat("as a superuser: ALTER ROLE ", quoted_role, " REPLICATION");
    case ServerFlavour::kAmazonRds:
      return Concat(
          "as a member of rds_superuser (e.g. the master user): GRANT rds_replication TO ",
          quoted_role);
    case ServerFlavour::kCloudSql:
      return Concat("as a member of cloudsqlsuperuser (e.g. the postgres user): ALTER USER ",
                    quoted_role, " WITH REPLICATION");
    case ServerFlavour::kAzureFlexible:
      return Concat("as a member of azure_pg_admin (e.g. the server admin): ALTER ROLE ",
                    quoted_role, " REPLICATION");
  }
  return Concat("as a superuser: ALTER ROLE ", quoted_role, " REPLICATION");
}

absl::StatusOr<ServerFlavour> DetectFlavour(Connection& conn) {
  auto result = conn.Query(
      "SELECT 's', name FROM pg_catalog.pg_settings WHERE name IN ('rds.extensions', "
      "'rds.logical_replication', 'cloudsql.logical_decoding', 'cloudsql.iam_authentication', "
      "'azure.extensions') UNION ALL SELECT 'r', rolname FROM pg_catalog.pg_roles "
      "WHERE rolname IN ('rds_superuser', 'cloudsqlsuperuser', 'azure_pg_admin')",
      "recognising a managed Postgres service");
  if (!result.ok()) return result.status();
  const PGresult* r = result->get();
  std::vector<std::string> settings;
  std::vector<std::string> roles;
  for (int i = 0; i < PQntuples(r); ++i) {
    (Value(r, i, 0) == "s" ? settings : roles).emplace_back(Value(r, i, 1));
  }
  return FlavourFrom(settings, roles);
}

absl::StatusOr<bool> HasManagedReplicationRole(Connection& conn, ServerFlavour flavour) {
  if (flavour != ServerFlavour::kAmazonRds) return false;
  auto result = conn.Query(
      "SELECT pg_catalog.pg_has_role(oid, 'MEMBER') FROM pg_catalog.pg_roles "
      "WHERE rolname = 'rds_replication'",
      "reading membership of rds_replication");
  if (!result.ok()) return result.status();
  return PQntuples(result->get()) == 1 && Value(result->get(), 0, 0) == "t";
}

}  // namespace outboxd::pg
