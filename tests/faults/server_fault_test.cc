// Server-side faults: outboxd must stop with the documented exit code and a log line that names
// the cause and the fix (3 server setup, 4 authentication/privilege, 6 lost slot), never hang or
// crash.

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/outbox_writer.h"
#include "harness/pg_client.h"
#include "harness/status_macros.h"
#include "harness/wait.h"
#include "support/dedicated_cluster.h"
#include "support/faults_fixture.h"

namespace outboxd::faults {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

using ServerFaultTest = FaultsTest;

TEST_F(ServerFaultTest, WalLevelNotLogical) {
  std::unique_ptr<DedicatedCluster> cluster = NewCluster();
  ASSERT_NE(cluster, nullptr);
  {
    IT_ASSERT_OK_AND_ASSIGN(it::PgClient admin, it::PgClient::Connect(cluster->admin_conninfo()));
    IT_ASSERT_OK(admin.Exec("ALTER SYSTEM SET wal_level = replica"));
  }
  IT_ASSERT_OK(cluster->RestartImmediate());
  const std::string log = ExpectExit(ConfigText(), kExitServerSetup);
  EXPECT_THAT(log, AllOf(HasSubstr("wal_level = replica"), HasSubstr("wal_level = logical"),
                         HasSubstr("restart Postgres")));
}

// The server's refusal carries no SQLSTATE libpq exposes and a text outboxd never matched
// (until libpq's verdict on the server decided, this retried forever).
TEST_F(ServerFaultTest, RoleNotPermittedToLogIn) {
  const std::string role = UniqueName("nologin");
  IT_ASSERT_OK(
      admin().Exec(absl::StrCat("CREATE ROLE ", role, " NOLOGIN REPLICATION PASSWORD 'x'")));
  config().pg_conninfo = absl::StrCat(env().pg_conninfo, " user=", role, " password=x");
  const std::string log = ExpectExit(ConfigText(), kExitPermission);
  EXPECT_THAT(log, HasSubstr("is not permitted to log in"));
}

TEST_F(ServerFaultTest, RoleWithoutReplication) {
  const std::string role = UniqueName("norepl");
  IT_ASSERT_OK(admin().Exec(absl::StrCat("CREATE ROLE ", role, " LOGIN PASSWORD 'x'")));
  config().pg_conninfo = absl::StrCat(env().pg_conninfo, " user=", role, " password=x");
  const std::string log = ExpectExit(ConfigText(), kExitPermission);
  EXPECT_THAT(log, HasSubstr("replication"));
  // The fix: which attribute the role needs.
  EXPECT_THAT(log, HasSubstr("REPLICATION"));
  IT_EXPECT_OK(admin().Exec(absl::StrCat("DROP ROLE ", role)));
}

TEST_F(ServerFaultTest, SlotInvalidatedIsLost) {
  std::unique_ptr<DedicatedCluster> cluster = NewCluster();
  ASSERT_NE(cluster, nullptr);
  IT_ASSERT_OK_AND_ASSIGN(it::PgClient admin, it::PgClient::Connect(cluster->admin_conninfo()));
  IT_ASSERT_OK(InvalidateSlot(admin, slot()));
  const std::string log = ExpectExit(ConfigText(), kExitSlotLost);
  EXPECT_THAT(log, AllOf(HasSubstr("wal_status = lost"), HasSubstr("may never reach Kafka"),
                         HasSubstr("pg_drop_replication_slot"), HasSubstr("backfill")));
}

TEST_F(ServerFaultTest, PublicationWithoutTheTable) {
  const std::string other = UniqueName("other");
  DropAtEnd(other);
  IT_ASSERT_OK(it::CreateOutboxTable(pg(), other));
  IT_ASSERT_OK(pg().Exec(absl::StrCat("CREATE PUBLICATION ", it::QuoteIdent(publication()),
                                      " FOR TABLE public.", it::QuoteIdent(other),
                                      " WITH (publish = 'insert')")));
  const std::string log = ExpectExit(ConfigText(), kExitServerSetup);
  EXPECT_THAT(log, AllOf(HasSubstr(absl::StrCat("does not include public.", table())),
                         HasSubstr("ALTER PUBLICATION")));
}

TEST_F(ServerFaultTest, PublicationMissingWithCreateSlotOff) {
  const std::string log = ExpectExit(ConfigText({"create_slot = false"}), kExitServerSetup);
  EXPECT_THAT(log, AllOf(HasSubstr(absl::StrCat("publication ", publication(), " does not exist")),
                         HasSubstr("CREATE PUBLICATION")));
}

TEST_F(ServerFaultTest, SlotMissingWithCreateSlotOff) {
  IT_ASSERT_OK(pg().Exec(absl::StrCat("CREATE PUBLICATION ", it::QuoteIdent(publication()),
                                      " FOR TABLE public.", it::QuoteIdent(table()),
                                      " WITH (publish = 'insert')")));
  const std::string log = ExpectExit(ConfigText({"create_slot = false"}), kExitServerSetup);
  EXPECT_THAT(log, AllOf(HasSubstr(absl::StrCat("replication slot ", slot(), " does not exist")),
                         HasSubstr("pg_create_logical_replication_slot")));
}

TEST_F(ServerFaultTest, TableMissing) {
  config().tables = {absl::StrCat("public.", UniqueName("nosuch"))};
  const std::string log = ExpectExit(ConfigText(), kExitServerSetup);
  EXPECT_THAT(log,
              AllOf(HasSubstr(absl::StrCat("public.", UniqueName("nosuch"), " does not exist")),
                    HasSubstr("[postgres] tables")));
}

TEST_F(ServerFaultTest, WrongPassword) {
  std::unique_ptr<DedicatedCluster> cluster = NewCluster();
  ASSERT_NE(cluster, nullptr);
  IT_ASSERT_OK(
      cluster->ReplaceHba("local all all trust\n"
                          "host all postgres 127.0.0.1/32 trust\n"
                          "host all all 127.0.0.1/32 scram-sha-256\n"));
  config().pg_conninfo = absl::StrCat(cluster->conninfo(), " password=wrong");
  const std::string log = ExpectExit(ConfigText(), kExitPermission);
  EXPECT_THAT(log, HasSubstr("password authentication failed for user \"outboxd\""));
  // The fix: where the password comes from.
  EXPECT_THAT(log, HasSubstr("conninfo"));
}

}  // namespace
}  // namespace outboxd::faults
