// `outboxd check` on managed Postgres: the service is recognised from what only it defines in
// pg_settings and pg_roles, and the wal_level and replication fixes name that service's own
// knob instead of ALTER SYSTEM, which those services refuse. Self-managed keeps the old words.

#include "pg/managed_postgres.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pg/catalog.h"

namespace outboxd::pg {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(FlavourFrom, NothingTelltaleIsSelfManaged) {
  EXPECT_EQ(FlavourFrom({}, {}), ServerFlavour::kSelfManaged);
  EXPECT_EQ(FlavourFrom({"wal_level", "shared_preload_libraries"}, {"postgres", "outboxd"}),
            ServerFlavour::kSelfManaged);
}

TEST(FlavourFrom, AmazonRdsFromItsSettingsOrItsRole) {
  EXPECT_EQ(FlavourFrom({"rds.extensions"}, {}), ServerFlavour::kAmazonRds);
  EXPECT_EQ(FlavourFrom({"rds.logical_replication"}, {}), ServerFlavour::kAmazonRds);
  EXPECT_EQ(FlavourFrom({}, {"rds_superuser"}), ServerFlavour::kAmazonRds);
}

TEST(FlavourFrom, CloudSqlFromItsSettingsOrItsRole) {
  EXPECT_EQ(FlavourFrom({"cloudsql.logical_decoding"}, {}), ServerFlavour::kCloudSql);
  EXPECT_EQ(FlavourFrom({"cloudsql.iam_authentication"}, {}), ServerFlavour::kCloudSql);
  EXPECT_EQ(FlavourFrom({}, {"cloudsqlsuperuser"}), ServerFlavour::kCloudSql);
}

TEST(FlavourFrom, AzureFlexibleServerFromItsSettingOrItsRole) {
  EXPECT_EQ(FlavourFrom({"azure.extensions"}, {}), ServerFlavour::kAzureFlexible);
  EXPECT_EQ(FlavourFrom({}, {"azure_pg_admin"}), ServerFlavour::kAzureFlexible);
}

// A self-managed server restored from an RDS dump keeps the rds_superuser role; a service's own
// settings are the stronger sign.
TEST(FlavourFrom, SettingsOutweighRolesLeftByARestore) {
  EXPECT_EQ(FlavourFrom({"azure.extensions"}, {"rds_superuser"}), ServerFlavour::kAzureFlexible);
  EXPECT_EQ(FlavourFrom({"cloudsql.iam_authentication"}, {"rds_superuser", "azure_pg_admin"}),
            ServerFlavour::kCloudSql);
}

TEST(WalLevelFix, SelfManagedIsUnchanged) {
  EXPECT_EQ(WalLevelFix(ServerFlavour::kSelfManaged), kWalLevelFix);
  EXPECT_THAT(WalLevelFix(ServerFlavour::kSelfManaged),
              HasSubstr("ALTER SYSTEM SET wal_level = logical"));
}

TEST(WalLevelFix, AmazonRdsNamesTheParameterGroupAndReboot) {
  EXPECT_THAT(WalLevelFix(ServerFlavour::kAmazonRds),
              AllOf(HasSubstr("rds.logical_replication = 1"), HasSubstr("parameter group"),
                    HasSubstr("reboot"), Not(HasSubstr("ALTER SYSTEM SET"))));
}

TEST(WalLevelFix, CloudSqlNamesTheDatabaseFlag) {
  EXPECT_THAT(WalLevelFix(ServerFlavour::kCloudSql),
              AllOf(HasSubstr("database flag"), HasSubstr("cloudsql.logical_decoding"),
                    Not(HasSubstr("ALTER SYSTEM SET"))));
}

TEST(WalLevelFix, AzureNamesTheServerParameterAndRestart) {
  EXPECT_THAT(WalLevelFix(ServerFlavour::kAzureFlexible),
              AllOf(HasSubstr("server parameter wal_level"), HasSubstr("logical"),
                    HasSubstr("restart"), Not(HasSubstr("ALTER SYSTEM SET"))));
}

TEST(ReplicationFix, SelfManagedIsUnchanged) {
  EXPECT_EQ(ReplicationFix(ServerFlavour::kSelfManaged, "\"outboxd\""),
            "as a superuser: ALTER ROLE \"outboxd\" REPLICATION");
}

TEST(ReplicationFix, AmazonRdsGrantsRdsReplication) {
  EXPECT_THAT(ReplicationFix(ServerFlavour::kAmazonRds, "\"outboxd\""),
              AllOf(HasSubstr("rds_superuser"), HasSubstr("GRANT rds_replication TO \"outboxd\""),
                    Not(HasSubstr("as a superuser"))));
}

TEST(ReplicationFix, CloudSqlAltersTheUserAsCloudSqlSuperuser) {
  EXPECT_THAT(
      ReplicationFix(ServerFlavour::kCloudSql, "\"outboxd\""),
      AllOf(HasSubstr("cloudsqlsuperuser"), HasSubstr("ALTER USER \"outboxd\" WITH REPLICATION")));
}

TEST(ReplicationFix, AzureAltersTheRoleAsAzurePgAdmin) {
  EXPECT_THAT(ReplicationFix(ServerFlavour::kAzureFlexible, "\"outboxd\""),
              AllOf(HasSubstr("azure_pg_admin"), HasSubstr("ALTER ROLE \"outboxd\" REPLICATION")));
}

TEST(FlavourName, NamesEachService) {
  EXPECT_EQ(FlavourName(ServerFlavour::kSelfManaged), "self-managed");
  EXPECT_EQ(FlavourName(ServerFlavour::kAmazonRds), "Amazon RDS/Aurora");
  EXPECT_EQ(FlavourName(ServerFlavour::kCloudSql), "Google Cloud SQL");
  EXPECT_EQ(FlavourName(ServerFlavour::kAzureFlexible),
            "Azure Database for PostgreSQL Flexible Server");
}

}  // namespace
}  // namespace outboxd::pg
