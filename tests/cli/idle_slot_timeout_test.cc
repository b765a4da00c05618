// PostgreSQL 18's idle_replication_slot_timeout against a real PostgreSQL 18 server (the
// official binaries, scripts/pg-binaries): `outboxd check` warns while it is set, with the
// arithmetic against the restart and standby plan and the slot's idle time, and a slot that it
// invalidated ends `outboxd run` with exit 6 naming that cause, not max_slot_wal_keep_size.
// Pinned to 18 (suite Pg/...), so the default run covers it and the compat matrix leaves it out.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "cli_fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/outbox_writer.h"
#include "harness/pg_client.h"
#include "harness/status_macros.h"
#include "harness/wait.h"

namespace outboxd::cli {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

class IdleSlotTimeoutTest : public CliTest, public ::testing::WithParamInterface<const char*> {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    if (HasFatalFailure()) return;
    IT_ASSERT_OK_AND_ASSIGN(cluster_,
                            faults::DedicatedCluster::StartVersion(env().scripts_dir, GetParam()));
    IT_ASSERT_OK_AND_ASSIGN(it::PgClient pg, it::PgClient::Connect(cluster_->conninfo()));
    IT_ASSERT_OK(it::CreateOutboxTable(pg, table()));
    IT_ASSERT_OK_AND_ASSIGN(it::PgClient admin, it::PgClient::Connect(cluster_->admin_conninfo()));
    admin_ = std::make_unique<it::PgClient>(std::move(admin));
    config().pg_conninfo = cluster_->conninfo();
  }
  void TearDown() override {
    CliTest::TearDown();
    admin_.reset();
    cluster_.reset();
  }

  void SetTimeout(const std::string& value) {
    IT_ASSERT_OK(admin_->Exec(
        absl::StrCat("ALTER SYSTEM SET idle_replication_slot_timeout = '", value, "'")));
    IT_ASSERT_OK(admin_->Exec("SELECT pg_reload_conf()"));
  }
  void CreateSlot() {
    IT_ASSERT_OK(admin_->Exec(absl::StrCat("SELECT pg_create_logical_replication_slot(",
                                           it::QuoteLiteral(slot()), ", 'pgoutput')")));
  }
  absl::StatusOr<std::string> InvalidationReason() {
    IT_ASSIGN_OR_RETURN(std::vector<it::PgRow> rows,
                        admin_->Query("SELECT coalesce(invalidation_reason, '') FROM "
                                      "pg_replication_slots WHERE slot_name = $1",
                                      {slot()}));
    if (rows.size() != 1 || !rows[0][0]) return absl::NotFoundError("no slot");
    return *rows[0][0];
  }

  std::unique_ptr<faults::DedicatedCluster> cluster_;
  std::unique_ptr<it::PgClient> admin_;
};

TEST_P(IdleSlotTimeoutTest, CheckPassesWhenOffAndWarnsWithTheArithmeticWhenSet) {
  const CliResult off = Check(ConfigText());
  EXPECT_THAT(off.out, HasSubstr("PASS idle_replication_slot_timeout: 0:"));
  ASSERT_NO_FATAL_FAILURE(SetTimeout("1h"));
  ASSERT_NO_FATAL_FAILURE(CreateSlot());
  const CliResult set = Check(ConfigText());
  EXPECT_EQ(set.exit_code, 0) << set.out;  // A warning, not a failure.
  EXPECT_THAT(
      LineStartingWith(set.out, "WARN idle_replication_slot_timeout:"),
      AllOf(HasSubstr("60 min (3600 s)"), HasSubstr(absl::StrCat("invalidates slot ", slot())),
            HasSubstr("a standby takes over within 10 s, inside it"), HasSubstr("exit codes 2-7"),
            HasSubstr("has been idle for"), HasSubstr("is invalidated in"),
            HasSubstr("idle_replication_slot_timeout = 0")));
  // Shorter than a restart: said so.
  ASSERT_NO_FATAL_FAILURE(SetTimeout("10s"));
  const CliResult short_timeout = Check(ConfigText());
  EXPECT_THAT(LineStartingWith(short_timeout.out, "WARN idle_replication_slot_timeout:"),
              HasSubstr("NOT inside it: an ordinary restart can lose the slot"));
}

TEST_P(IdleSlotTimeoutTest, ASlotLostToItEndsRunWithExit6NamingTheCause) {
  ASSERT_NO_FATAL_FAILURE(CreateSlot());
  ASSERT_NO_FATAL_FAILURE(SetTimeout("1s"));
  // Postgres invalidates idle slots at a checkpoint.
  const absl::Status invalidated = it::WaitUntilOk(
      [&]() -> absl::StatusOr<bool> {
        absl::SleepFor(absl::Milliseconds(500));
        IT_RETURN_IF_ERROR(admin_->Exec("CHECKPOINT"));
        IT_ASSIGN_OR_RETURN(std::string reason, InvalidationReason());
        return reason == "idle_timeout";
      },
      absl::Seconds(30), "Postgres to invalidate the idle slot");
  IT_ASSERT_OK(invalidated);
  ASSERT_NO_FATAL_FAILURE(SetTimeout("0"));
  CliProcess* run = StartRun(ConfigText(), {});
  ASSERT_NE(run, nullptr);
  absl::StatusOr<CliResult> ended = run->Wait(absl::Seconds(60));
  ASSERT_TRUE(ended.ok()) << ended.status();
  EXPECT_EQ(ended->exit_code, faults::kExitSlotLost) << ended->err;
  EXPECT_THAT(ended->err, AllOf(HasSubstr("invalidation_reason = idle_timeout"),
                                HasSubstr("longer than idle_replication_slot_timeout"),
                                HasSubstr("ALTER SYSTEM SET idle_replication_slot_timeout = 0"),
                                Not(HasSubstr("raise max_slot_wal_keep_size"))));
}

INSTANTIATE_TEST_SUITE_P(Pg, IdleSlotTimeoutTest, ::testing::Values("18"));

}  // namespace
}  // namespace outboxd::cli
