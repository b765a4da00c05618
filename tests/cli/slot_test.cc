// `outboxd slot status|create|drop` against the real Postgres.

#include "absl/strings/str_cat.h"
#include "cli_fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/pg_client.h"
#include "harness/status_macros.h"

namespace outboxd::cli {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

class SlotTest : public CliTest {
 protected:
  absl::StatusOr<bool> SlotExists() {
    IT_ASSIGN_OR_RETURN(
        std::optional<std::string> found,
        admin().QueryOptional("SELECT 1 FROM pg_replication_slots WHERE slot_name = $1", {slot()}));
    return found.has_value();
  }
};

TEST_F(SlotTest, CreateStatusDrop) {
  const CliResult missing = Cli({"slot", "status"}, ConfigText());
  EXPECT_EQ(missing.exit_code, faults::kExitServerSetup);
  EXPECT_THAT(missing.out, HasSubstr(absl::StrCat("slot ", slot(), " does not exist")));

  const CliResult created = Cli({"slot", "create"}, ConfigText());
  EXPECT_EQ(created.exit_code, 0);
  EXPECT_THAT(created.out, HasSubstr("are ready"));
  IT_ASSERT_OK_AND_ASSIGN(bool exists, SlotExists());
  EXPECT_TRUE(exists);
  IT_ASSERT_OK_AND_ASSIGN(
      std::optional<std::string> publication,
      admin().QueryOptional("SELECT pubinsert::text FROM pg_publication WHERE pubname = $1",
                            {publication()}));
  EXPECT_EQ(publication, "true");

  const CliResult status = Cli({"slot", "status"}, ConfigText());
  EXPECT_EQ(status.exit_code, 0);
  EXPECT_THAT(status.out, AllOf(HasSubstr("plugin               pgoutput"),
                                HasSubstr("active               no"), HasSubstr("restart_lsn"),
                                HasSubstr("confirmed_flush_lsn"), HasSubstr("wal_status"),
                                HasSubstr("safe_wal_size"), HasSubstr("retained WAL")));

  const CliResult unconfirmed = Cli({"slot", "drop"}, ConfigText());
  EXPECT_EQ(unconfirmed.exit_code, faults::kExitUsage);
  EXPECT_THAT(unconfirmed.err, AllOf(HasSubstr("--yes"), HasSubstr("position")));
  IT_ASSERT_OK_AND_ASSIGN(exists, SlotExists());
  EXPECT_TRUE(exists);

  const CliResult dropped = Cli({"slot", "drop", "--yes"}, ConfigText());
  EXPECT_EQ(dropped.exit_code, 0);
  EXPECT_THAT(dropped.out, HasSubstr(absl::StrCat("dropped slot ", slot())));
  IT_ASSERT_OK_AND_ASSIGN(exists, SlotExists());
  EXPECT_FALSE(exists);
}

TEST_F(SlotTest, DropRefusesWhileActive) {
  IT_ASSERT_OK(LaunchStreaming(ConfigText()).status());
  const CliResult result = Cli({"slot", "drop", "--yes"}, ConfigText());
  EXPECT_EQ(result.exit_code, faults::kExitServerSetup);
  EXPECT_THAT(result.err, AllOf(HasSubstr("in use by pid"), HasSubstr("stop it first")));
  IT_ASSERT_OK_AND_ASSIGN(bool exists, SlotExists());
  EXPECT_TRUE(exists);
}

}  // namespace
}  // namespace outboxd::cli
