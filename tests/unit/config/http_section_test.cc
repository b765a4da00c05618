// [http] listen: off by default, validated host:port, typos caught.

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

TEST(HttpSectionTest, OffByDefault) {
  auto config = Parse(WithMinimal(""));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->http.listen, "");
  auto empty = Parse(WithMinimal("[http]\nlisten = \"\"\n"));
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->http.listen, "");
}

TEST(HttpSectionTest, AcceptsHostPortAndBracketedIpv6) {
  for (const char* listen : {"127.0.0.1:8587", "0.0.0.0:8587", "localhost:0", "[::1]:8587",
                             "[::]:8587", "metrics.internal:80"}) {
    auto config = Parse(WithMinimal(std::string("[http]\nlisten = \"") + listen + "\"\n"));
    ASSERT_TRUE(config.ok()) << listen << ": " << config.status();
    EXPECT_EQ(config->http.listen, listen);
  }
}

TEST(HttpSectionTest, MalformedListenNamesLineProblemAndFix) {
  // kMinimal is 7 lines; [http] is line 8, listen line 9.
  EXPECT_EQ(ErrorOf(WithMinimal("[http]\nlisten = \"127.0.0.1\"\n")),
            "outboxd.toml:9: [http] listen \"127.0.0.1\" has no :port; write host:port, e.g. "
            "127.0.0.1:8587, 0.0.0.0:8587 for every interface or [::1]:8587 for IPv6; "
            "listen = \"\" turns the server off");
  EXPECT_THAT(ErrorOf(WithMinimal("[http]\nlisten = \"::1:8587\"\n")),
              HasSubstr("[http] listen \"::1:8587\" is an IPv6 address without brackets; "));
  EXPECT_THAT(ErrorOf(WithMinimal("[http]\nlisten = \"127.0.0.1:99999\"\n")),
              HasSubstr("has a port that is not a number from 0 to 65535"));
  EXPECT_THAT(ErrorOf(WithMinimal("[http]\nlisten = \":8587\"\n")), HasSubstr("has no host"));
}

TEST(HttpSectionTest, WrongTypeUnknownKeyAndNonTable) {
  EXPECT_THAT(ErrorOf(WithMinimal("[http]\nlisten = 8587\n")),
              HasSubstr("outboxd.toml:9: [http] listen must be a string, got integer; write "
                        "listen = \"127.0.0.1:8587\""));
  EXPECT_THAT(ErrorOf(WithMinimal("[http]\nlisen = \"127.0.0.1:8587\"\n")),
              HasSubstr(R"(unknown key [http] lisen; did you mean "listen"?)"));
  EXPECT_THAT(ErrorOf(WithMinimal("[htp]\nlisten = \"127.0.0.1:8587\"\n")),
              HasSubstr(R"(unknown section [htp]; did you mean "http"?)"));
  EXPECT_THAT(ErrorOf("http = 1\n" + WithMinimal("")),
              HasSubstr("[http] must be a table, got integer"));
}

}  // namespace
}  // namespace outboxd::config
