#include "outbox/bytea.h"

#include "gtest/gtest.h"

namespace outboxd::outbox {
namespace {

TEST(DecodeByteaHexTest, DecodesEitherCase) {
  std::string out;
  ASSERT_TRUE(DecodeByteaHex("\\x7b22a2223a317D", out).ok());
  EXPECT_EQ(out, std::string("{\"\xa2\":1}"));
}

TEST(DecodeByteaHexTest, DecodesEmptyAndBinaryBytes) {
  std::string out = "stale";
  ASSERT_TRUE(DecodeByteaHex("\\x", out).ok());
  EXPECT_EQ(out, "");
  ASSERT_TRUE(DecodeByteaHex("\\x00ff0a", out).ok());
  EXPECT_EQ(out, std::string("\x00\xff\n", 3));
}

TEST(DecodeByteaHexTest, SkipsWhitespaceBetweenPairsLikeByteain) {
  std::string out;
  ASSERT_TRUE(DecodeByteaHex("\\x41 42\n43", out).ok());
  EXPECT_EQ(out, "ABC");
}

TEST(DecodeByteaHexTest, RejectsMalformedText) {
  std::string out;
  absl::Status s = DecodeByteaHex("\\x414", out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "bytea payload is not \\x hex: odd number of hex digits");
  EXPECT_EQ(DecodeByteaHex("\\x4g", out).message(),
            "bytea payload is not \\x hex: invalid hex digit at offset 3");
  EXPECT_EQ(DecodeByteaHex("\\xz1", out).message(),
            "bytea payload is not \\x hex: invalid hex digit at offset 2");
  // bytea_output = 'escape' sends this form; the fix is a server setting.
  EXPECT_EQ(DecodeByteaHex("abc\\000", out).message(),
            "bytea payload is not \\x hex: it does not start with \\x; set bytea_output = 'hex' "
            "on the server");
  EXPECT_FALSE(DecodeByteaHex("", out).ok());
}

}  // namespace
}  // namespace outboxd::outbox
