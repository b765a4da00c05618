#include "common/types.h"

#include "gtest/gtest.h"

namespace outboxd {
namespace {

TEST(LsnTest, PrintsLikePostgres) {
  EXPECT_EQ(Lsn(0x16B374D848).ToString(), "16/B374D848");
  EXPECT_EQ(Lsn(0).ToString(), "0/0");
}

TEST(LsnTest, ParsesWhatItPrints) {
  EXPECT_EQ(Lsn::Parse("16/B374D848"), Lsn(0x16B374D848));
  EXPECT_EQ(Lsn::Parse("0/1"), Lsn(1));
  EXPECT_EQ(Lsn::Parse(Lsn(0xFFFFFFFF00000001).ToString()), Lsn(0xFFFFFFFF00000001));
}

TEST(LsnTest, RejectsMalformedText) {
  for (const char* bad :
       {"", "/", "16/", "/B3", "16B374D848", "1/2/3", "G/1", "1/ 2", "1/100000000"}) {
    EXPECT_EQ(Lsn::Parse(bad), std::nullopt) << bad;
  }
}

TEST(LsnTest, OrdersByPosition) {
  EXPECT_LT(Lsn(1), Lsn(2));
  EXPECT_FALSE(Lsn().IsValid());
}

}  // namespace
}  // namespace outboxd
