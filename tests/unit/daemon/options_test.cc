#include "daemon/options.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd::daemon {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<Options> Parse(std::vector<const char*> args) {
  args.insert(args.begin(), "outboxd");
  return ParseArgs(static_cast<int>(args.size()), args.data());
}

TEST(OptionsTest, RunWithLogFlagsInBothSpellings) {
  auto options = Parse({"run", "--config", "f.toml", "--log-format=json", "--log-level", "warn"});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->command, "run");
  EXPECT_EQ(options->config_path, "f.toml");
  EXPECT_EQ(options->format, log::Format::kJson);
  EXPECT_EQ(options->level, log::Level::kWarn);
  auto spaced = Parse({"run", "--config=f.toml", "--log-format", "text"});
  ASSERT_TRUE(spaced.ok()) << spaced.status();
  EXPECT_EQ(spaced->format, log::Format::kText);
  EXPECT_EQ(spaced->config_path, "f.toml");
}

TEST(OptionsTest, SlotActions) {
  auto drop = Parse({"slot", "drop", "--config", "f.toml", "--yes"});
  ASSERT_TRUE(drop.ok()) << drop.status();
  EXPECT_EQ(drop->slot_action, "drop");
  EXPECT_TRUE(drop->yes);
  EXPECT_THAT(Parse({"slot", "rename", "--config", "f"}).status().message(),
              HasSubstr("unknown slot action"));
  EXPECT_FALSE(Parse({"slot", "--config", "f"}).ok());
}

TEST(OptionsTest, DebeziumConfigAndImport) {
  auto run = Parse({"run", "--debezium-config", "c.json"});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->debezium_config_path, "c.json");
  EXPECT_EQ(run->config_path, "");
  auto both = Parse({"check", "--debezium-config=c.json", "--config", "kafka.toml", "--offline"});
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_EQ(both->debezium_config_path, "c.json");
  EXPECT_EQ(both->config_path, "kafka.toml");
  auto import = Parse({"import-debezium", "c.json"});
  ASSERT_TRUE(import.ok()) << import.status();
  EXPECT_EQ(import->command, "import-debezium");
  EXPECT_EQ(import->debezium_config_path, "c.json");
  EXPECT_THAT(Parse({"import-debezium"}).status().message(), HasSubstr("needs the connector JSON"));
  EXPECT_THAT(
      Parse({"import-debezium", "c.json", "--debezium-config", "d.json"}).status().message(),
      HasSubstr("unexpected argument"));
}

TEST(OptionsTest, AllowNewSlotOnlyForRun) {
  auto run = Parse({"run", "--config", "f.toml", "--allow-new-slot"});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_TRUE(run->allow_new_slot);
  EXPECT_FALSE(Parse({"run", "--config", "f.toml"})->allow_new_slot);
  EXPECT_THAT(Parse({"check", "--config", "f", "--allow-new-slot"}).status().message(),
              HasSubstr("unexpected argument \"--allow-new-slot\""));
}

TEST(OptionsTest, Rejections) {
  EXPECT_THAT(Parse({"run"}).status().message(),
              HasSubstr("needs --config FILE or --debezium-config"));
  EXPECT_THAT(Parse({"run", "--config", "f", "--log-format", "xml"}).status().message(),
              HasSubstr("use text or json"));
  EXPECT_THAT(Parse({"frobnicate"}).status().message(), HasSubstr("unknown command"));
  EXPECT_THAT(Parse({"run", "--config", "f", "--yes"}).status().message(),
              HasSubstr("unexpected argument \"--yes\""));
  EXPECT_TRUE(Parse({"check", "--config", "f", "--offline"}).ok());
  EXPECT_TRUE(Parse({"version"}).ok());
  EXPECT_EQ(Parse({"--help"})->command, "help");
  EXPECT_EQ(Parse({"-h"})->command, "help");
  EXPECT_FALSE(Parse({}).ok());
}

TEST(OptionsTest, VersionFlag) {
  EXPECT_EQ(Parse({"--version"})->command, "version");
  EXPECT_EQ(Parse({"-V"})->command, "version");
}

TEST(OptionsTest, CommandHelpWinsOverEverythingElse) {
  for (const char* command : {"run", "check", "slot", "import-debezium", "version"}) {
    auto options = Parse({command, "--help"});
    ASSERT_TRUE(options.ok()) << command << ": " << options.status();
    EXPECT_TRUE(options->help);
    EXPECT_EQ(options->command, command);
    EXPECT_THAT(CommandUsage(command),
                ::testing::StartsWith(std::string("usage: outboxd ") + command));
  }
  EXPECT_TRUE(Parse({"slot", "rename", "--bogus", "-h"})->help);
  EXPECT_FALSE(Parse({"frobnicate", "--help"}).ok());
  EXPECT_EQ(CommandUsage("help"), kUsage);
}

absl::StatusOr<Options> ParseWithEnv(std::vector<const char*> args,
                                     std::map<std::string, std::string> env) {
  args.insert(args.begin(), "outboxd");
  return ParseArgs(static_cast<int>(args.size()), args.data(),
                   [env](std::string_view name) -> std::optional<std::string> {
                     auto it = env.find(std::string(name));
                     if (it == env.end()) return std::nullopt;
                     return it->second;
                   });
}

TEST(OptionsTest, ConfigFileLogSettingsApplyOnlyWhereNoFlagOrVariableDid) {
  // Neither flag nor variable: the file's [log] wins over the defaults.
  auto plain = ParseWithEnv({"run", "--config", "f"}, {});
  ASSERT_TRUE(plain.ok()) << plain.status();
  ApplyConfigLog(log::Level::kError, log::Format::kJson, *plain);
  EXPECT_EQ(plain->level, log::Level::kError);
  EXPECT_EQ(plain->format, log::Format::kJson);
  // Not in the file: the defaults stay.
  auto unset = ParseWithEnv({"run", "--config", "f"}, {});
  ASSERT_TRUE(unset.ok()) << unset.status();
  ApplyConfigLog(std::nullopt, std::nullopt, *unset);
  EXPECT_EQ(unset->level, log::Level::kInfo);
  EXPECT_EQ(unset->format, log::Format::kText);
  // The environment beats the file, even when it names the default.
  auto env = ParseWithEnv({"run", "--config", "f"},
                          {{"OUTBOXD_LOG_LEVEL", "info"}, {"OUTBOXD_LOG_FORMAT", "text"}});
  ASSERT_TRUE(env.ok()) << env.status();
  ApplyConfigLog(log::Level::kError, log::Format::kJson, *env);
  EXPECT_EQ(env->level, log::Level::kInfo);
  EXPECT_EQ(env->format, log::Format::kText);
  // A flag beats the file; the other setting still comes from it.
  auto flag = ParseWithEnv({"run", "--config", "f", "--log-level=debug"}, {});
  ASSERT_TRUE(flag.ok()) << flag.status();
  ApplyConfigLog(log::Level::kError, log::Format::kJson, *flag);
  EXPECT_EQ(flag->level, log::Level::kDebug);
  EXPECT_EQ(flag->format, log::Format::kJson);
}

TEST(OptionsTest, LogLevelAndFormatFromTheEnvironmentUnlessAFlagSaysOtherwise) {
  const std::map<std::string, std::string> env = {{"OUTBOXD_LOG_LEVEL", "debug"},
                                                  {"OUTBOXD_LOG_FORMAT", "json"}};
  auto from_env = ParseWithEnv({"run", "--config", "f"}, env);
  ASSERT_TRUE(from_env.ok()) << from_env.status();
  EXPECT_EQ(from_env->level, log::Level::kDebug);
  EXPECT_EQ(from_env->format, log::Format::kJson);
  auto flags =
      ParseWithEnv({"run", "--config", "f", "--log-level=error", "--log-format=text"}, env);
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->level, log::Level::kError);
  EXPECT_EQ(flags->format, log::Format::kText);
  EXPECT_THAT(
      ParseWithEnv({"run", "--config", "f"}, {{"OUTBOXD_LOG_LEVEL", "loud"}}).status().message(),
      HasSubstr("OUTBOXD_LOG_LEVEL=loud"));
  EXPECT_THAT(
      ParseWithEnv({"run", "--config", "f"}, {{"OUTBOXD_LOG_FORMAT", "xml"}}).status().message(),
      HasSubstr("OUTBOXD_LOG_FORMAT=xml: use text or json"));
  // Without an environment (the two-argument call), the defaults.
  EXPECT_EQ(Parse({"run", "--config", "f"})->level, log::Level::kInfo);
}

}  // namespace
}  // namespace outboxd::daemon
