#include "common/check_result.h"

#include "gtest/gtest.h"

namespace outboxd {
namespace {

TEST(CheckResultTest, PassHasNoFix) {
  EXPECT_EQ(FormatCheckLine(Pass("wal_level", "logical")), "PASS wal_level: logical");
  CheckResult odd = Pass("x", "y");
  odd.fix = "ignored";
  EXPECT_EQ(FormatCheckLine(odd), "PASS x: y");
}

TEST(CheckResultTest, WarnAndFailCarryTheFix) {
  EXPECT_EQ(FormatCheckLine(Warn("max_slot_wal_keep_size", "-1", "bound it")),
            "WARN max_slot_wal_keep_size: -1; bound it");
  EXPECT_EQ(FormatCheckLine(Fail("wal_level", "replica", "set it to logical")),
            "FAIL wal_level: replica; set it to logical");
}

TEST(CheckResultTest, MultiLineMessagesBecomeOneLine) {
  EXPECT_EQ(
      FormatCheckLine(Fail("postgres connection", "refused\n\tIs the server running?", "start it")),
      "FAIL postgres connection: refused Is the server running?; start it");
}

}  // namespace
}  // namespace outboxd
