// [log] level and format: unset unless given, the flag spellings only, typos caught.

#include "config/config.h"
#include "config_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd::config {
namespace {

using ::outboxd::config::testing::ErrorOf;
using ::outboxd::config::testing::Parse;
using ::outboxd::config::testing::WithMinimal;
using ::testing::HasSubstr;

TEST(LogSectionTest, UnsetByDefault) {
  auto config = Parse(WithMinimal(""));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_FALSE(config->log.level.has_value());
  EXPECT_FALSE(config->log.format.has_value());
}

TEST(LogSectionTest, ReadsLevelAndFormat) {
  auto config = Parse(WithMinimal("[log]\nlevel = \"warn\"\nformat = \"json\"\n"));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->log.level, log::Level::kWarn);
  EXPECT_EQ(config->log.format, log::Format::kJson);
  auto level_only = Parse(WithMinimal("[log]\nlevel = \"debug\"\n"));
  ASSERT_TRUE(level_only.ok()) << level_only.status();
  EXPECT_EQ(level_only->log.level, log::Level::kDebug);
  EXPECT_FALSE(level_only->log.format.has_value());
}

TEST(LogSectionTest, BadValuesNameTheFix) {
  EXPECT_THAT(ErrorOf(WithMinimal("[log]\nlevel = \"loud\"\n")),
              HasSubstr("[log] level is \"loud\"; use debug, info, warn or error"));
  EXPECT_THAT(ErrorOf(WithMinimal("[log]\nformat = \"xml\"\n")),
              HasSubstr("[log] format is \"xml\"; use text or json"));
  EXPECT_THAT(ErrorOf(WithMinimal("[log]\nlevel = 3\n")), HasSubstr("level = \"info\""));
  EXPECT_THAT(ErrorOf(WithMinimal("[log]\nlevle = \"info\"\n")), HasSubstr("level"));
  EXPECT_THAT(ErrorOf(WithMinimal("[logs]\nlevel = \"info\"\n")),
              HasSubstr("did you mean \"log\"?"));
}

}  // namespace
}  // namespace outboxd::config
