// The configured level filters every severity: `--log-level error` drops warnings too, as the
// header promises. Captures fd 2, since log::Write goes straight to write(2).

#include <string>

#include "common/log.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd::log {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class LogLevelTest : public ::testing::Test {
 protected:
  void TearDown() override { SetMinLevel(Level::kInfo); }

  // What the four logging functions write to stderr with `level` set.
  static std::string LoggedAt(Level level) {
    SetMinLevel(level);
    ::testing::internal::CaptureStderr();
    Debug("debug line {}", 1);
    Info("info line {}", 2);
    Warn("warn line {}", 3);
    Error("error line {}", 4);
    return ::testing::internal::GetCapturedStderr();
  }
};

TEST_F(LogLevelTest, ErrorLevelDropsWarnings) {
  const std::string out = LoggedAt(Level::kError);
  EXPECT_THAT(out, Not(HasSubstr("warn line 3")));
  EXPECT_THAT(out, Not(HasSubstr("info line 2")));
  EXPECT_THAT(out, HasSubstr("ERROR error line 4"));
}

TEST_F(LogLevelTest, WarnLevelKeepsWarningsAndErrors) {
  const std::string out = LoggedAt(Level::kWarn);
  EXPECT_THAT(out, Not(HasSubstr("info line 2")));
  EXPECT_THAT(out, HasSubstr("WARN warn line 3"));
  EXPECT_THAT(out, HasSubstr("ERROR error line 4"));
}

TEST_F(LogLevelTest, DebugLevelKeepsEverything) {
  const std::string out = LoggedAt(Level::kDebug);
  EXPECT_THAT(out, HasSubstr("DEBUG debug line 1"));
  EXPECT_THAT(out, HasSubstr("INFO info line 2"));
  EXPECT_THAT(out, HasSubstr("WARN warn line 3"));
  EXPECT_THAT(out, HasSubstr("ERROR error line 4"));
}

TEST(LogEnabledTest, FollowsTheMinimumLevel) {
  SetMinLevel(Level::kError);
  EXPECT_FALSE(Enabled(Level::kWarn));
  EXPECT_TRUE(Enabled(Level::kError));
  SetMinLevel(Level::kInfo);
  EXPECT_TRUE(Enabled(Level::kWarn));
  EXPECT_FALSE(Enabled(Level::kDebug));
}

}  // namespace
}  // namespace outboxd::log
