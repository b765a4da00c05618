#include "common/host_port.h"

#include "common/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd {
namespace {

using ::testing::HasSubstr;

TEST(ParseHostPort, AcceptsIpv4NamesAndBracketedIpv6) {
  auto a = ParseHostPort("127.0.0.1:8587");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 8587);
  auto b = ParseHostPort("localhost:0");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->host, "localhost");
  EXPECT_EQ(b->port, 0);
  auto c = ParseHostPort("[::1]:65535");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->host, "::1");
  EXPECT_EQ(c->port, 65535);
}

TEST(ParseHostPort, RejectsMalformedAddressesNamingTheProblemAndTheFix) {
  const std::pair<const char*, const char*> cases[] = {
      {"127.0.0.1", "has no :port"},
      {":8587", "has no host"},
      {"[]:8587", "has no host"},
      {"::1:8587", "IPv6 address without brackets"},
      {"[::1:8587", "has no ]"},
      {"[::1]8587", "has no :port after the ]"},
      {"host:", "not a number from 0 to 65535"},
      {"host:65536", "not a number from 0 to 65535"},
      {"host:-1", "not a number from 0 to 65535"},
      {"host:80x", "not a number from 0 to 65535"},
      {"host: 80", "not a number from 0 to 65535"},
  };
  for (const auto& [text, problem] : cases) {
    auto parsed = ParseHostPort(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(MessageOf(parsed.status()), HasSubstr(problem)) << text;
    EXPECT_THAT(MessageOf(parsed.status()), HasSubstr(std::string("\"") + text + "\""));
    EXPECT_THAT(MessageOf(parsed.status()), HasSubstr("write host:port"));
  }
}

}  // namespace
}  // namespace outboxd
