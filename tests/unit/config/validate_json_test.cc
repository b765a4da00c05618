// [outbox] validate_json: off by default, a boolean, anything else is an error that says so.

#include "config/config.h"
#include "config_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd::config {
namespace {

using ::outboxd::config::testing::ErrorOf;
using ::outboxd::config::testing::kMinimal;
using ::outboxd::config::testing::Parse;
using ::outboxd::config::testing::WithMinimal;
using ::testing::HasSubstr;

TEST(ValidateJsonConfigTest, OffByDefault) {
  absl::StatusOr<Config> config = Parse(kMinimal);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_FALSE(config->outbox.validate_json);
}

TEST(ValidateJsonConfigTest, TrueTurnsItOn) {
  absl::StatusOr<Config> config = Parse(WithMinimal("[outbox]\nvalidate_json = true\n"));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_TRUE(config->outbox.validate_json);
}

TEST(ValidateJsonConfigTest, NonBooleanNamesKeyLineAndFix) {
  const std::string error = ErrorOf(WithMinimal("[outbox]\nvalidate_json = \"yes\"\n"));
  EXPECT_THAT(error, HasSubstr("[outbox] validate_json must be true or false, got string"));
  EXPECT_THAT(error, HasSubstr("write validate_json = false"));
  EXPECT_THAT(error, HasSubstr("outboxd.toml:"));
}

TEST(ValidateJsonConfigTest, TypoSuggestsTheKey) {
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\nvalidate_jsn = true\n")),
              HasSubstr("did you mean \"validate_json\"?"));
}

}  // namespace
}  // namespace outboxd::config
