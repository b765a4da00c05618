// The command-line conventions: `outboxd --version`, `outboxd COMMAND --help`, and the log
// level and format from OUTBOXD_LOG_LEVEL / OUTBOXD_LOG_FORMAT (a flag overrides them).

#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "cli_fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd::cli {
namespace {

using ::testing::HasSubstr;
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

  // A Debezium connector JSON with one option outboxd ignores (a warning on import).
  std::string WriteConnector() {
    const std::string path = absl::StrCat(dir(), "/connector.json");
    std::ofstream(path)
        << R"({"connector.class": "io.debezium.connector.postgresql.PostgresConnector",
      "database.hostname": "db", "database.user": "dbz", "database.dbname": "shop",
      "topic.prefix": "shop", "plugin.name": "pgoutput", "table.include.list": "public.outbox",
      "frobnicate.option": "x"})";
    return path;
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

TEST_F(UsageTest, LogLevelFromTheEnvironment) {
  const std::string connector = WriteConnector();
  const CliResult warn = Run({"import-debezium", connector});
  EXPECT_EQ(warn.exit_code, 0) << warn.err;
  EXPECT_THAT(warn.err, HasSubstr("frobnicate.option is not used"));
  const CliResult quiet = Run({"import-debezium", connector}, {{"OUTBOXD_LOG_LEVEL", "error"}});
  EXPECT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_THAT(quiet.err, Not(HasSubstr("frobnicate")));
  EXPECT_EQ(quiet.out, warn.out);
  const CliResult loud =
      Run({"import-debezium", connector, "--log-level", "warn"}, {{"OUTBOXD_LOG_LEVEL", "error"}});
  EXPECT_THAT(loud.err, HasSubstr("frobnicate.option is not used"));
}

TEST_F(UsageTest, BadLogEnvironmentIsAUsageError) {
  const CliResult result = Run({"version"}, {{"OUTBOXD_LOG_LEVEL", "loud"}});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("OUTBOXD_LOG_LEVEL=loud: use debug, info, warn or error"));
}

}  // namespace
}  // namespace outboxd::cli
