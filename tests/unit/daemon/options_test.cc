#include "daemon/options.h"

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

}  // namespace
}  // namespace outboxd::daemon
