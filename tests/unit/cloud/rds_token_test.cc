// RDS IAM tokens, byte for byte as botocore's generate_db_auth_token makes them for the same
// credentials, endpoint, user, region and time. The expected strings come from
// reference_tokens.py (next to this file; its docstring says how to run it).
#include "cloud/rds_token.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "token_test_support.h"

namespace outboxd::cloud {
namespace {

using ::testing::HasSubstr;
using testing::kReferenceSessionToken;
using testing::ReferenceCredentials;
using testing::ReferenceTime;

TEST(RdsTokenTest, MatchesBotocoreWithLongTermKeys) {
  const auto token = MakeRdsAuthToken(
      ReferenceCredentials(),
      {"mydb.abc123.us-east-1.rds.amazonaws.com", 5432, "outboxd", "us-east-1"}, ReferenceTime());
  ASSERT_TRUE(token.ok()) << token.status();
  EXPECT_EQ(*token,
            "mydb.abc123.us-east-1.rds.amazonaws.com:5432/?Action=connect&DBUser=outboxd&"
            "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE%2F20261207%2Fus-east-1%"
            "2Frds-db%2Faws4_request&X-Amz-Date=20261207T180000Z&X-Amz-Expires=900&"
            "X-Amz-SignedHeaders=host&X-Amz-Signature="
            "06a3c6fb92c46f994539e6221de8caabad1bf281dd5b6a10f1a407e3c81e40b0");
}

TEST(RdsTokenTest, MatchesBotocoreWithASessionTokenAndAnEncodedUser) {
  const auto token = MakeRdsAuthToken(
      ReferenceCredentials(kReferenceSessionToken),
      {"aurora.cluster-xyz.eu-central-1.rds.amazonaws.com", 5433, "relay user@x", "eu-central-1"},
      ReferenceTime());
  ASSERT_TRUE(token.ok()) << token.status();
  EXPECT_EQ(*token,
            "aurora.cluster-xyz.eu-central-1.rds.amazonaws.com:5433/?Action=connect&DBUser=relay%"
            "20user%40x&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE%2F20261207%"
            "2Feu-central-1%2Frds-db%2Faws4_request&X-Amz-Date=20261207T180000Z&X-Amz-Expires=900&"
            "X-Amz-SignedHeaders=host&X-Amz-Security-Token=IQoJb3JpZ2luX2VjEXAMPLE%2Ftoken%2Bwith%"
            "3Dspecials&X-Amz-Signature="
            "ef45f6f0c101ffcaa25a67b38d538659abb0bae78d4df28b013170d80cd9592e");
}

TEST(RdsTokenTest, RefusesWhatItCannotSignNamingTheFix) {
  const auto credentials = ReferenceCredentials();
  EXPECT_THAT(MakeRdsAuthToken(credentials, {"db.example", 5432, "u", ""}, ReferenceTime())
                  .status()
                  .message(),
              HasSubstr("AWS_REGION"));
  EXPECT_THAT(MakeRdsAuthToken(credentials, {"/var/run/postgresql", 5432, "u", "us-east-1"},
                               ReferenceTime())
                  .status()
                  .message(),
              HasSubstr("endpoint"));
  EXPECT_THAT(MakeRdsAuthToken(credentials, {"db.example", 5432, "", "us-east-1"}, ReferenceTime())
                  .status()
                  .message(),
              HasSubstr("rds_iam"));
}

}  // namespace
}  // namespace outboxd::cloud
