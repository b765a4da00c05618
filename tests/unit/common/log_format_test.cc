// The two log line formats: text for people, one JSON object per line for log shippers, both
// scrubbed of secrets.

#include <chrono>
#include <string>

#include "common/log.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd::log {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// 2026-01-02T03:04:05.678Z
const std::chrono::system_clock::time_point kWhen =
    std::chrono::system_clock::from_time_t(1767323045) + std::chrono::milliseconds(678);

TEST(LogFormatTest, TextLine) {
  EXPECT_EQ(FormatLine(Format::kText, Level::kWarn, kWhen, "slot lagging", Redactor()),
            "2026-01-02T03:04:05.678Z WARN slot lagging\n");
}

TEST(LogFormatTest, JsonLineIsOneEscapedObject) {
  EXPECT_EQ(FormatLine(Format::kJson, Level::kError, kWhen, "bad \"row\"\n\tat 0/1", Redactor()),
            R"({"ts":"2026-01-02T03:04:05.678Z","level":"error","msg":"bad \"row\"\n\tat 0/1"})"
            "\n");
  EXPECT_EQ(FormatLine(Format::kJson, Level::kDebug, kWhen, "x", Redactor()),
            R"({"ts":"2026-01-02T03:04:05.678Z","level":"debug","msg":"x"})"
            "\n");
}

TEST(LogFormatTest, BothFormatsScrubSecrets) {
  Redactor redactor;
  redactor.Add("hunter22");
  for (Format format : {Format::kText, Format::kJson}) {
    const std::string line =
        FormatLine(format, Level::kInfo, kWhen, "auth failed with hunter22", redactor);
    EXPECT_THAT(line, Not(HasSubstr("hunter22")));
    EXPECT_THAT(line, HasSubstr("auth failed with ********"));
  }
}

TEST(LogFormatTest, ParsesFlagValues) {
  Format format = Format::kText;
  EXPECT_TRUE(ParseFormat("json", format));
  EXPECT_EQ(format, Format::kJson);
  EXPECT_FALSE(ParseFormat("JSON", format));
  Level level = Level::kInfo;
  EXPECT_TRUE(ParseLevel("error", level));
  EXPECT_EQ(level, Level::kError);
  EXPECT_FALSE(ParseLevel("verbose", level));
}

}  // namespace
}  // namespace outboxd::log
