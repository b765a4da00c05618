// Enum values written another way (letter case, '-' for '_' or the reverse) are read as the
// value they name, with a warning that names the spelling to write; anything else stays an
// error, and the canonical spelling warns of nothing.

#include "config/config.h"
#include "config_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd::config {
namespace {

using ::outboxd::config::testing::ErrorOf;
using ::outboxd::config::testing::Parse;
using ::outboxd::config::testing::WithMinimal;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(EnumSpellingTest, CanonicalSpellingsWarnOfNothing) {
  auto config = Parse(WithMinimal(
      "[outbox]\nempty_keys = \"dead_letter\"\nformat = \"envelope-json\"\n"
      "value_converter = \"json_with_schema\"\n[log]\nlevel = \"info\"\nformat = \"text\"\n"));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_THAT(config->warnings, IsEmpty());
}

TEST(EnumSpellingTest, DashesForUnderscoresAndCaseAreReadWithAWarning) {
  auto config =
      Parse(WithMinimal("[outbox]\nempty_keys = \"dead-letter\"\n"
                        "value_converter = \"JSON_With_Schema\"\n"));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->outbox.empty_keys, KeyPolicy::kDeadLetter);
  EXPECT_EQ(config->outbox.value_converter, Converter::kJsonWithSchema);
  EXPECT_THAT(config->warnings,
              ElementsAre(HasSubstr(R"([outbox] value_converter is "JSON_With_Schema", read as )"
                                    R"("json_with_schema": write "json_with_schema")"),
                          HasSubstr(R"([outbox] empty_keys is "dead-letter", read as )"
                                    R"("dead_letter": write "dead_letter")")));
}

TEST(EnumSpellingTest, UnderscoresForDashesAreReadWithAWarning) {
  auto config = Parse(WithMinimal("[outbox]\nformat = \"Envelope_Protobuf\"\n"));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->outbox.format, Format::kEnvelopeProtobuf);
  ASSERT_EQ(config->warnings.size(), 1u);
  // The warning names the file and line like the errors do.
  EXPECT_THAT(config->warnings[0], HasSubstr("outboxd.toml:"));
  EXPECT_THAT(config->warnings[0], HasSubstr(R"(write "envelope-protobuf")"));
}

TEST(EnumSpellingTest, LogLevelAndFormatInCapitals) {
  auto config = Parse(WithMinimal("[log]\nlevel = \"WARN\"\nformat = \"Json\"\n"));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->log.level, log::Level::kWarn);
  EXPECT_EQ(config->log.format, log::Format::kJson);
  EXPECT_THAT(config->warnings,
              ElementsAre(HasSubstr(R"([log] level is "WARN", read as "warn")"),
                          HasSubstr(R"([log] format is "Json", read as "json")")));
}

TEST(EnumSpellingTest, OtherWordsAreStillErrors) {
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\nempty_keys = \"dead letter\"\n")),
              HasSubstr("which is not a choice"));
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\nempty_keys = \"deadletter\"\n")),
              HasSubstr("which is not a choice"));
  EXPECT_THAT(ErrorOf(WithMinimal("[log]\nlevel = \"warning\"\n")),
              HasSubstr("use debug, info, warn or error"));
}

}  // namespace
}  // namespace outboxd::config
