// `outboxd check` against the real servers: a correct set-up passes (PASS/WARN only, exit 0)
// before and while outboxd runs, and each misconfiguration gives its FAIL line, with the fix,
// and the documented exit code (3 server setting or object, 4 authentication or privilege).

#include "absl/strings/str_cat.h"
#include "cli_fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/kafka_admin.h"
#include "harness/pg_client.h"
#include "harness/status_macros.h"
#include "harness/wait.h"

namespace outboxd::cli {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;

class CheckTest : public CliTest {};

TEST_F(CheckTest, CorrectSetupPassesBeforeAndWhileRunning) {
  const CliResult before = Check(ConfigText());
  EXPECT_EQ(before.exit_code, 0);
  EXPECT_TRUE(OnlyPassOrWarn(before.out));
  EXPECT_THAT(before.out,
              AllOf(HasSubstr("PASS wal_level: logical"), HasSubstr("PASS max_replication_slots:"),
                    HasSubstr("PASS max_wal_senders:"), HasSubstr("max_slot_wal_keep_size: "),
                    HasSubstr("PASS role outboxd: has REPLICATION"),
                    HasSubstr(absl::StrCat("PASS table public.", table())),
                    HasSubstr(absl::StrCat("PASS SELECT on public.", table())),
                    HasSubstr("PASS kafka brokers: 1 broker(s) reached")));
  // What run creates itself passes with a note.
  EXPECT_THAT(LineStartingWith(before.out, absl::StrCat("PASS publication ", publication())),
              HasSubstr("run will create it"));
  EXPECT_THAT(LineStartingWith(before.out, absl::StrCat("PASS slot ", slot())),
              HasSubstr("run will create it"));
  EXPECT_THAT(LineStartingWith(before.out, absl::StrCat("PASS topic ", dlq_topic())),
              HasSubstr("auto.create.topics.enable = true"));

  IT_ASSERT_OK(LaunchStreaming(ConfigText()).status());
  const absl::Status created = it::CreateTopic(env().kafka_bootstrap, dlq_topic(), 1);
  ASSERT_TRUE(created.ok() || absl::IsAlreadyExists(created)) << created;
  const CliResult running = Check(ConfigText());
  EXPECT_EQ(running.exit_code, 0);
  EXPECT_TRUE(OnlyPassOrWarn(running.out));
  EXPECT_THAT(LineStartingWith(running.out, absl::StrCat("PASS publication ", publication())),
              HasSubstr("covers the tables, inserts only"));
  EXPECT_THAT(LineStartingWith(running.out, absl::StrCat("PASS slot ", slot())),
              AllOf(HasSubstr("pgoutput"), HasSubstr("active (pid"), HasSubstr("retains")));
  EXPECT_THAT(LineStartingWith(running.out, absl::StrCat("PASS topic ", dlq_topic())),
              HasSubstr("exists, 1 partition(s)"));
}

TEST_F(CheckTest, OfflineOnlyValidatesTheConfig) {
  config().pg_conninfo = "host=127.0.0.1 port=1 dbname=app user=nobody";
  const CliResult result = Cli({"check", "--offline"}, ConfigText());
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_THAT(result.out, StartsWith("PASS config: "));
  EXPECT_THAT(result.out, Not(HasSubstr("postgres")));
}

TEST_F(CheckTest, InvalidConfigExitsTwo) {
  const CliResult result = Check("[postgres]\nslot = 1\n");
  EXPECT_EQ(result.exit_code, faults::kExitUsage);
  EXPECT_THAT(result.err, HasSubstr("[postgres]"));
}

TEST_F(CheckTest, WalLevelReplica) {
  std::unique_ptr<faults::DedicatedCluster> cluster = NewCluster();
  ASSERT_NE(cluster, nullptr);
  {
    IT_ASSERT_OK_AND_ASSIGN(it::PgClient admin, it::PgClient::Connect(cluster->admin_conninfo()));
    IT_ASSERT_OK(admin.Exec("ALTER SYSTEM SET wal_level = replica"));
  }
  IT_ASSERT_OK(cluster->RestartImmediate());
  const CliResult result = Check(ConfigText());
  EXPECT_EQ(result.exit_code, faults::kExitServerSetup);
  EXPECT_THAT(LineStartingWith(result.out, "FAIL wal_level:"),
              AllOf(HasSubstr("replica"), HasSubstr("ALTER SYSTEM SET wal_level = logical"),
                    HasSubstr("restart Postgres")));
}

TEST_F(CheckTest, RoleWithoutReplication) {
  const std::string role = UniqueName("norepl");
  IT_ASSERT_OK(admin().Exec(absl::StrCat("CREATE ROLE ", role, " LOGIN PASSWORD 'x'")));
  config().pg_conninfo = absl::StrCat(env().pg_conninfo, " user=", role, " password=x");
  const CliResult result = Check(ConfigText());
  EXPECT_EQ(result.exit_code, faults::kExitPermission);
  // Identifiers in the fix are quoted, as PQescapeIdentifier does.
  EXPECT_THAT(LineStartingWith(result.out, absl::StrCat("FAIL role ", role, ":")),
              AllOf(HasSubstr("no REPLICATION"),
                    HasSubstr(absl::StrCat("ALTER ROLE \"", role, "\" REPLICATION"))));
  IT_EXPECT_OK(admin().Exec(absl::StrCat("DROP ROLE ", role)));
}

TEST_F(CheckTest, RoleWithoutSelect) {
  const std::string role = UniqueName("nosel");
  IT_ASSERT_OK(admin().Exec(absl::StrCat("CREATE ROLE ", role, " LOGIN REPLICATION PASSWORD 'x'")));
  config().pg_conninfo = absl::StrCat(env().pg_conninfo, " user=", role, " password=x");
  const CliResult result = Check(ConfigText());
  EXPECT_EQ(result.exit_code, faults::kExitPermission);
  EXPECT_THAT(
      LineStartingWith(result.out, absl::StrCat("FAIL SELECT on public.", table(), ":")),
      HasSubstr(absl::StrCat("GRANT SELECT ON \"public\".\"", table(), "\" TO \"", role, "\"")));
  // It cannot create the publication either, not owning the table.
  EXPECT_THAT(LineStartingWith(result.out, absl::StrCat("FAIL publication ", publication())),
              HasSubstr("does not own"));
  IT_EXPECT_OK(admin().Exec(absl::StrCat("DROP ROLE ", role)));
}

TEST_F(CheckTest, TableMissing) {
  const std::string missing = UniqueName("nosuch");
  config().tables = {absl::StrCat("public.", missing)};
  const CliResult result = Check(ConfigText());
  EXPECT_EQ(result.exit_code, faults::kExitServerSetup);
  EXPECT_THAT(LineStartingWith(result.out, absl::StrCat("FAIL table public.", missing, ":")),
              AllOf(HasSubstr("does not exist"), HasSubstr("[postgres] tables")));
}

TEST_F(CheckTest, ColumnMissing) {
  const CliResult result = Check(ConfigText(
      {}, {"aggregate_id_column = \"aggid\"", "additional_placement = [\"nosuchcol:header:x\"]"}));
  EXPECT_EQ(result.exit_code, faults::kExitServerSetup);
  EXPECT_THAT(LineStartingWith(result.out, absl::StrCat("FAIL table public.", table(), ":")),
              AllOf(HasSubstr("aggid ([outbox] aggregate_id_column)"),
                    HasSubstr("nosuchcol ([outbox] additional_placement)")));
}

// The event contract's mapping (outbox/mapping_check.h): check and run refuse it alike.
TEST_F(CheckTest, ContractMappingWithAMissingColumnIsRefusedByCheckAndRun) {
  const std::string text =
      ConfigText({}, {"format = \"envelope-json\"", "correlation_id_column = \"corr\""});
  const CliResult result = Check(text);
  EXPECT_EQ(result.exit_code, faults::kExitServerSetup);
  EXPECT_THAT(
      LineStartingWith(result.out, absl::StrCat("FAIL mapping of public.", table(), ":")),
      AllOf(HasSubstr("correlation_id_column = \"corr\""),
            HasSubstr(absl::StrCat("table public.", table())), HasSubstr("add the column")));

  CliProcess* run = StartRun(text, {});
  ASSERT_NE(run, nullptr);
  absl::StatusOr<CliResult> ended = run->Wait(absl::Seconds(60));
  IT_ASSERT_OK(ended.status());
  EXPECT_EQ(ended->exit_code, faults::kExitServerSetup);
  EXPECT_THAT(ended->err, AllOf(HasSubstr("correlation_id_column = \"corr\""),
                                HasSubstr(absl::StrCat("public.", table()))));
}

TEST_F(CheckTest, OccurredAtThatCannotCarryATimestampIsRefused) {
  IT_ASSERT_OK(
      admin().Exec(absl::StrCat("ALTER TABLE public.", table(), " ADD COLUMN occurred_at date")));
  const CliResult result = Check(ConfigText({}, {"format = \"envelope-protobuf\""}));
  EXPECT_EQ(result.exit_code, faults::kExitServerSetup);
  EXPECT_THAT(
      LineStartingWith(result.out, absl::StrCat("FAIL mapping of public.", table(), ":")),
      AllOf(HasSubstr("column occurred_at"), HasSubstr("type date"), HasSubstr("timestamptz")));
}

TEST_F(CheckTest, PublicationMissingWithCreateSlotOff) {
  const CliResult result = Check(ConfigText({"create_slot = false"}));
  EXPECT_EQ(result.exit_code, faults::kExitServerSetup);
  EXPECT_THAT(LineStartingWith(result.out, absl::StrCat("FAIL publication ", publication(), ":")),
              AllOf(HasSubstr("create_slot = false"), HasSubstr("CREATE PUBLICATION")));
  EXPECT_THAT(LineStartingWith(result.out, absl::StrCat("FAIL slot ", slot(), ":")),
              HasSubstr("pg_create_logical_replication_slot"));
}

TEST_F(CheckTest, PublicationWithoutTheTable) {
  const std::string other = UniqueName("other");
  DropAtEnd(other);
  IT_ASSERT_OK(it::CreateOutboxTable(pg(), other));
  IT_ASSERT_OK(pg().Exec(absl::StrCat("CREATE PUBLICATION ", it::QuoteIdent(publication()),
                                      " FOR TABLE public.", it::QuoteIdent(other))));
  const CliResult result = Check(ConfigText());
  EXPECT_EQ(result.exit_code, faults::kExitServerSetup);
  EXPECT_THAT(LineStartingWith(result.out, absl::StrCat("FAIL publication ", publication(), ":")),
              AllOf(HasSubstr("does not include"), HasSubstr("ALTER PUBLICATION")));
}

TEST_F(CheckTest, LostSlotAndBoundedWalKeep) {
  std::unique_ptr<faults::DedicatedCluster> cluster = NewCluster();
  ASSERT_NE(cluster, nullptr);
  IT_ASSERT_OK_AND_ASSIGN(it::PgClient admin, it::PgClient::Connect(cluster->admin_conninfo()));
  IT_ASSERT_OK(faults::InvalidateSlot(admin, slot()));
  const CliResult result = Check(ConfigText());
  EXPECT_EQ(result.exit_code, faults::kExitServerSetup);
  EXPECT_THAT(result.out, HasSubstr("PASS max_slot_wal_keep_size: 1MB"));
  EXPECT_THAT(LineStartingWith(result.out, absl::StrCat("FAIL slot ", slot(), ":")),
              AllOf(HasSubstr("wal_status lost"), HasSubstr("invalidated"),
                    HasSubstr("outboxd slot drop --yes")));
}

TEST_F(CheckTest, BrokerUnreachable) {
  config().kafka_bootstrap = "127.0.0.1:1";
  const CliResult result = Check(ConfigText());
  EXPECT_EQ(result.exit_code, faults::kExitServerSetup);
  EXPECT_THAT(LineStartingWith(result.out, "FAIL kafka brokers:"),
              AllOf(HasSubstr("no broker answered"), HasSubstr("Connection refused"),
                    HasSubstr("bootstrap.servers")));
  // The Postgres side is still checked and fine.
  EXPECT_THAT(result.out, HasSubstr("PASS wal_level: logical"));
  EXPECT_THAT(LineStartingWith(result.out, "FAIL topic"), IsEmpty());
}

TEST_F(CheckTest, FixedTopicIsChecked) {
  const std::string fixed = Topic("fixed");
  IT_ASSERT_OK(it::CreateTopic(env().kafka_bootstrap, fixed, 2));
  config().topic_pattern = fixed;
  const CliResult result = Check(ConfigText());
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_THAT(LineStartingWith(result.out, absl::StrCat("PASS topic ", fixed, ":")),
              HasSubstr("exists, 2 partition(s)"));
}

TEST_F(CheckTest, ExactlyOnceChecksTheBrokersTransactionSettings) {
  config().delivery = "exactly_once";
  const CliResult result = Check(ConfigText());
  EXPECT_EQ(result.exit_code, 0) << result.out;
  // The test broker: one node, replication factor 1, no authorizer.
  EXPECT_THAT(LineStartingWith(result.out, "PASS kafka transactions:"),
              AllOf(HasSubstr("replication.factor 1 on 1 broker(s)"),
                    HasSubstr("transaction.timeout.ms 60000 within the broker's 900000")));
  EXPECT_THAT(LineStartingWith(result.out, "PASS kafka transactional id outboxd-"),
              HasSubstr("no authorizer"));

  // A producer timeout the broker refuses would fail init_transactions.
  config().kafka_properties["transaction.timeout.ms"] = "1000000";
  const CliResult too_long = Check(ConfigText());
  EXPECT_EQ(too_long.exit_code, faults::kExitServerSetup);
  EXPECT_THAT(LineStartingWith(too_long.out, "FAIL kafka transactions:"),
              HasSubstr("exceeds the broker's transaction.max.timeout.ms 900000"));
  // At least once checks nothing of it.
  config().delivery.clear();
  EXPECT_THAT(LineStartingWith(Check(ConfigText()).out, "PASS kafka transactions"), IsEmpty());
}

}  // namespace
}  // namespace outboxd::cli
