#include "common/json_string.h"

#include <string>

#include "gtest/gtest.h"

namespace outboxd {
namespace {

std::string Json(std::string_view text) {
  std::string out;
  AppendJsonString(out, text);
  return out;
}

TEST(JsonStringTest, EscapesQuotesBackslashesAndControls) {
  EXPECT_EQ(Json("plain"), R"("plain")");
  EXPECT_EQ(Json(R"(say "hi" \ bye)"), R"("say \"hi\" \\ bye")");
  EXPECT_EQ(Json("a\nb\tc\rd\be\ff"), R"("a\nb\tc\rd\be\ff")");
  EXPECT_EQ(Json(std::string_view("\x00\x01\x1f\x7f", 4)), R"("\u0000\u0001\u001f\u007f")");
  EXPECT_EQ(Json(""), R"("")");
}

TEST(JsonStringTest, KeepsValidUtf8) {
  EXPECT_EQ(Json("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"),
            "\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"");
}

TEST(JsonStringTest, ReplacesInvalidUtf8ByteByByte) {
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(Json("a\x80z"), "\"a" + fffd + "z\"");                    // Stray continuation byte.
  EXPECT_EQ(Json("\xC0\xAF"), "\"" + fffd + fffd + "\"");             // Overlong '/'.
  EXPECT_EQ(Json("\xED\xA0\x80"), "\"" + fffd + fffd + fffd + "\"");  // Surrogate U+D800.
  EXPECT_EQ(Json("\xF4\x90\x80\x80"), "\"" + fffd + fffd + fffd + fffd + "\"");  // > U+10FFFF.
  EXPECT_EQ(Json("ok\xE2\x82"), "\"ok" + fffd + fffd + "\"");  // Truncated at the end.
  EXPECT_EQ(Json("\xFF\"x"), "\"" + fffd + "\\\"x\"");         // Quote after garbage still escaped.
}

}  // namespace
}  // namespace outboxd
