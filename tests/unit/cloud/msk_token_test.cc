// MSK IAM tokens, byte for byte as aws-msk-iam-sasl-signer-python 1.0.2 makes them for the same
// credentials, region and time. The expected strings come from reference_tokens.py (next to
// this file; its docstring says how to run it).
#include "cloud/msk_token.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "token_test_support.h"

namespace outboxd::cloud {
namespace {

using ::testing::HasSubstr;
using testing::kReferenceSessionToken;
using testing::ReferenceCredentials;
using testing::ReferenceTime;

constexpr char kPythonUserAgent[] = "aws-msk-iam-sasl-signer-python/1.0.2";

TEST(MskTokenTest, MatchesThePythonSignerWithLongTermKeys) {
  const auto token =
      MakeMskToken(ReferenceCredentials(), "us-east-1", ReferenceTime(), kPythonUserAgent);
  ASSERT_TRUE(token.ok()) << token.status();
  EXPECT_EQ(
      token->value,
      "aHR0cHM6Ly9rYWZrYS51cy1lYXN0LTEuYW1hem9uYXdzLmNvbS8_QWN0aW9uPWthZmthLWNsdXN0ZXIlM0FDb2"
      "5uZWN0JlgtQW16LUFsZ29yaXRobT1BV1M0LUhNQUMtU0hBMjU2JlgtQW16LUNyZWRlbnRpYWw9QUtJREVYQU1Q"
      "TEUlMkYyMDI2MTIwNyUyRnVzLWVhc3QtMSUyRmthZmthLWNsdXN0ZXIlMkZhd3M0X3JlcXVlc3QmWC1BbXotRG"
      "F0ZT0yMDI2MTIwN1QxODAwMDBaJlgtQW16LUV4cGlyZXM9OTAwJlgtQW16LVNpZ25lZEhlYWRlcnM9aG9zdCZY"
      "LUFtei1TaWduYXR1cmU9N2YyZjVkMDc5NGVlZDQwMTFiYzM4N2U5ODAzMWYwMGRjZWY1YjU3MzIzMjA2YTY4Mz"
      "ZmMjFlNTk3Nzk3MDVmZSZVc2VyLUFnZW50PWF3cy1tc2staWFtLXNhc2wtc2lnbmVyLXB5dGhvbiUyRjEuMC4y");
  // The signer reports expiry_ms=1796667300000: signing time + 900 s.
  EXPECT_EQ(
      std::chrono::duration_cast<std::chrono::milliseconds>(token->expiration.time_since_epoch())
          .count(),
      1796667300000);
}

TEST(MskTokenTest, MatchesThePythonSignerWithASessionToken) {
  const auto token =
      MakeMskToken(ReferenceCredentials(kReferenceSessionToken), "eu-west-1",
                   ReferenceTime() + std::chrono::milliseconds(999), kPythonUserAgent);
  ASSERT_TRUE(token.ok()) << token.status();
  EXPECT_EQ(token->value,
            "aHR0cHM6Ly9rYWZrYS5ldS13ZXN0LTEuYW1hem9uYXdzLmNvbS8_QWN0aW9uPWthZmthLWNsdXN0ZXIlM0FDb2"
            "5uZWN0JlgtQW16LUFsZ29yaXRobT1BV1M0LUhNQUMtU0hBMjU2JlgtQW16LUNyZWRlbnRpYWw9QUtJREVYQU1Q"
            "TEUlMkYyMDI2MTIwNyUyRmV1LXdlc3QtMSUyRmthZmthLWNsdXN0ZXIlMkZhd3M0X3JlcXVlc3QmWC1BbXotRG"
            "F0ZT0yMDI2MTIwN1QxODAwMDBaJlgtQW16LUV4cGlyZXM9OTAwJlgtQW16LVNpZ25lZEhlYWRlcnM9aG9zdCZY"
            "LUFtei1TZWN1cml0eS1Ub2tlbj1JUW9KYjNKcFoybHVYMlZqRVhBTVBMRSUyRnRva2VuJTJCd2l0aCUzRHNwZW"
            "NpYWxzJlgtQW16LVNpZ25hdHVyZT04NDYxMTMzNDRiMWI4MjMwNTY0ZTI1NzY2MDk2OTBkMzY1NjdiOWY1ZjVm"
            "YWYyY2I2MDgyMGQ1YTliZjNjOTM1JlVzZXItQWdlbnQ9YXdzLW1zay1pYW0tc2FzbC1zaWduZXItcHl0aG9uJT"
            "JGMS4wLjI");
  EXPECT_EQ(token->expiration, ReferenceTime() + kMskTokenLifetime);
}

TEST(MskTokenTest, RefusesAMissingOrMalformedRegionNamingTheFix) {
  const auto missing = MakeMskToken(ReferenceCredentials(), "", ReferenceTime(), "ua");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(missing.status().message(), HasSubstr("AWS_REGION"));
  const auto hostile =
      MakeMskToken(ReferenceCredentials(), "us-east-1.evil.com/x", ReferenceTime(), "ua");
  EXPECT_THAT(hostile.status().message(), HasSubstr("not an AWS region name"));
}

TEST(MskTokenTest, RefusesIncompleteCredentials) {
  auto credentials = ReferenceCredentials();
  credentials.secret_access_key.clear();
  EXPECT_EQ(MakeMskToken(credentials, "us-east-1", ReferenceTime(), "ua").status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace outboxd::cloud
