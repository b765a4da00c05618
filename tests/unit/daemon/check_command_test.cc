// The check command's exit code and output, from hand-made results (the checks themselves run
// against real servers in tests/cli).

#include "daemon/check_command.h"

#include <cstdio>
#include <string>

#include "gtest/gtest.h"

namespace outboxd::daemon {
namespace {

TEST(CheckExitCodeTest, ZeroWithOnlyPassAndWarn) {
  EXPECT_EQ(CheckExitCode({Pass("a", "ok"), Warn("b", "risky", "fix")}), 0);
  EXPECT_EQ(CheckExitCode({}), 0);
}

TEST(CheckExitCodeTest, FirstFailDecides) {
  EXPECT_EQ(CheckExitCode({Pass("a", "ok"), Fail("wal_level", "replica", "fix")}), 3);
  EXPECT_EQ(CheckExitCode({Fail("role", "no REPLICATION", "fix", /*permission=*/true),
                           Fail("wal_level", "replica", "fix")}),
            4);
  EXPECT_EQ(CheckExitCode({Fail("wal_level", "replica", "fix"),
                           Fail("role", "no REPLICATION", "fix", /*permission=*/true)}),
            3);
}

TEST(PrintResultsTest, OneScrubbedLinePerResult) {
  Redactor redactor;
  redactor.Add("s3cr3tpw");
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  PrintResults(
      {Pass("a", "fine"), Fail("postgres connection", "auth failed for s3cr3tpw", "fix it")},
      redactor, out);
  std::rewind(out);
  char buffer[512] = {};
  const size_t n = std::fread(buffer, 1, sizeof buffer - 1, out);
  std::fclose(out);
  EXPECT_EQ(std::string(buffer, n),
            "PASS a: fine\nFAIL postgres connection: auth failed for ********; fix it\n");
}

}  // namespace
}  // namespace outboxd::daemon
