// The command-line conventions: `outboxd --version`, `outboxd COMMAND --help`, and the log
// level and format from OUTBOXD_LOG_LEVEL / OUTBOXD_LOG_FORMAT (a flag overrides them).
// Note: WARN and ERROR lines are written whatever the level (common/log.h), so the level test
// uses run's INFO lines.

#include <librdkafka/rdkafka.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "cli_fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;
using ::testing::StartsWith;

class UsageTest : public CliTest {
 protected:
  // `outboxd <args...>` without a config file.
  CliResult Run(const std::vector<std::string>& args,
                const std::map<std::string, std::string>& env = {}) {
    absl::StatusOr<CliResult> result =
        RunCli(this->env().outboxd_binary, args, env, dir(), absl::StrCat("usage-", ++runs_));
    if (!result.ok()) {
      ADD_FAILURE() << result.status();
      return CliResult{};
    }
    return *result;
  }

 private:
  int runs_ = 0;
};

TEST_F(UsageTest, VersionFlagPrintsTheVersionAndExitsZero) {
  const CliResult flag = Run({"--version"});
  EXPECT_EQ(flag.exit_code, 0);
  EXPECT_THAT(flag.out, StartsWith("outboxd "));
  EXPECT_EQ(flag.err, "");
  const CliResult command = Run({"version"});
  EXPECT_EQ(command.exit_code, 0);
  EXPECT_EQ(command.out, flag.out);
  // The libraries as loaded: the same librdkafka as this test's process.
  EXPECT_THAT(flag.out, MatchesRegex("outboxd [^ ]+ \\(commit [0-9a-f]+\\)\n"
                                     "librdkafka [0-9.]+\nlibpq [0-9.]+\nsimdjson [0-9.]+\n"));
  EXPECT_THAT(flag.out, HasSubstr(absl::StrCat("\nlibrdkafka ", rd_kafka_version_str(), "\n")));
}

TEST_F(UsageTest, EveryCommandHasItsOwnHelp) {
  for (const std::string command : {"run", "check", "slot", "import-debezium", "version"}) {
    for (const std::string help : {"--help", "-h"}) {
      const CliResult result = Run({command, help});
      EXPECT_EQ(result.exit_code, 0) << command << " " << help;
      EXPECT_THAT(result.out, StartsWith("usage: outboxd " + command)) << command;
      EXPECT_EQ(result.err, "") << command;
    }
  }
  // --help wins over anything else on the line, even arguments that would be refused.
  const CliResult slot = Run({"slot", "drop", "--yes", "--help"});
  EXPECT_EQ(slot.exit_code, 0);
  EXPECT_THAT(slot.out, HasSubstr("--yes"));
  const CliResult top = Run({"--help"});
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_THAT(top.out, HasSubstr("COMMAND --help"));
}

TEST_F(UsageTest, LogFormatFromTheEnvironmentAndTheFlagOverridesIt) {
  const std::string bad_config = "[postgres]\nslot = 1\n";
  const CliResult json = Cli({"check", "--offline"}, bad_config, {{"OUTBOXD_LOG_FORMAT", "json"}});
  EXPECT_EQ(json.exit_code, 2);
  EXPECT_THAT(json.err, StartsWith(R"({"ts":")"));
  EXPECT_THAT(json.err, HasSubstr(R"("level":"error")"));
  const CliResult text = Cli({"check", "--offline", "--log-format", "text"}, bad_config,
                             {{"OUTBOXD_LOG_FORMAT", "json"}});
  EXPECT_EQ(text.exit_code, 2);
  EXPECT_THAT(text.err, Not(StartsWith("{")));
  EXPECT_THAT(text.err, HasSubstr(" ERROR "));
}

// `run` logs an INFO line as it starts, then retries the unreachable Postgres until SIGTERM.
TEST_F(UsageTest, LogLevelFromTheEnvironmentAndTheFlagOverridesIt) {
  config().pg_conninfo = "host=127.0.0.1 port=1 dbname=app user=nobody";
  const std::map<std::string, std::string> warn = {{"OUTBOXD_LOG_LEVEL", "warn"}};
  for (const bool flag : {false, true}) {
    std::vector<std::string> args;
    if (flag) args = {"--log-level", "info"};
    CliProcess* run = StartRun(ConfigText(), warn, args);
    ASSERT_NE(run, nullptr);
    absl::SleepFor(absl::Seconds(2));
    absl::StatusOr<CliResult> ended = run->Terminate(absl::Seconds(30));
    ASSERT_TRUE(ended.ok()) << ended.status();
    if (flag) {
      EXPECT_THAT(ended->err, HasSubstr(" INFO outboxd ")) << ended->err;
    } else {
      EXPECT_THAT(ended->err, Not(HasSubstr(" INFO "))) << ended->err;
    }
  }
}

TEST_F(UsageTest, BadLogEnvironmentIsAUsageError) {
  const CliResult result = Run({"version"}, {{"OUTBOXD_LOG_LEVEL", "loud"}});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("OUTBOXD_LOG_LEVEL=loud: use debug, info, warn or error"));
}

}  // namespace
}  // namespace outboxd::cli
