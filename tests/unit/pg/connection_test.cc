// libpq's version numbers in the dotted form `outboxd version` and outboxd_build_info show, and
// the parameters of each connection attempt (the RDS IAM password hook).

#include "pg/connection.h"

#include <libpq-fe.h>

#include <cstdlib>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pg/connect_password.h"

namespace outboxd::pg {
namespace {

TEST(VersionTextTest, TwoPartsSincePostgres10ThreeBefore) {
  EXPECT_EQ(VersionText(150018), "15.18");
  EXPECT_EQ(VersionText(170000), "17.0");
  EXPECT_EQ(VersionText(100023), "10.23");
  EXPECT_EQ(VersionText(90624), "9.6.24");
}

TEST(VersionTextTest, LibraryVersionIsTheLoadedLibpqs) {
  EXPECT_EQ(LibraryVersion(), VersionText(PQlibVersion()));
  EXPECT_THAT(LibraryVersion(), ::testing::MatchesRegex("[0-9]+\\.[0-9]+"));
}

// RDS IAM: every connection attempt asks the password hook for a fresh password.
class PasswordHookTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"PGHOST", "PGPORT", "PGUSER", "PGSSLMODE"}) unsetenv(name);
  }
  void TearDown() override { SetPasswordHook(nullptr); }
};

std::string ValueOfKeyword(const ConnectParams& params, std::string_view keyword) {
  for (size_t i = 0; params.keywords[i] != nullptr; ++i) {
    if (keyword == params.keywords[i]) return params.values[i];
  }
  return "<absent>";
}

TEST_F(PasswordHookTest, EachAttemptGetsAFreshPasswordForTheResolvedTarget) {
  int attempts = 0;
  std::vector<std::string> targets;
  SetPasswordHook([&](const ConnectTarget& target) -> absl::StatusOr<std::string> {
    targets.push_back(target.user + "@" + target.host + ":" + std::to_string(target.port));
    return "token-" + std::to_string(++attempts);
  });
  const std::string conninfo =
      "postgresql://relay@db.example:5433/app?sslmode=verify-full&password=ignored";
  auto first = MakeConnectParams(conninfo, /*replication=*/true, "outboxd");
  auto second = MakeConnectParams(conninfo, /*replication=*/false, "outboxd check");
  ASSERT_TRUE(first.ok() && second.ok());
  // After dbname, so it overrides the conninfo's own password.
  EXPECT_EQ(ValueOfKeyword(*first, "password"), "token-1");
  EXPECT_EQ(ValueOfKeyword(*second, "password"), "token-2");
  const ConnectParams moved = *std::move(first);  // The pointers survive a move.
  EXPECT_EQ(ValueOfKeyword(moved, "password"), "token-1");
  EXPECT_THAT(targets, ::testing::ElementsAre("relay@db.example:5433", "relay@db.example:5433"));
}

TEST_F(PasswordHookTest, WithoutAHookTheConninfoKeepsItsPassword) {
  auto params = MakeConnectParams("host=db password=secret", /*replication=*/false, "x");
  ASSERT_TRUE(params.ok());
  EXPECT_EQ(ValueOfKeyword(*params, "password"), "<absent>");
}

TEST_F(PasswordHookTest, AHookErrorIsAnnotatedWithTheTarget) {
  SetPasswordHook([](const ConnectTarget&) -> absl::StatusOr<std::string> {
    return absl::FailedPreconditionError("no AWS credentials found");
  });
  auto params = MakeConnectParams("host=db.example user=relay", /*replication=*/false, "x");
  EXPECT_EQ(params.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(params.status().message(),
              ::testing::HasSubstr("cannot make the IAM password for relay@db.example:5432: no AWS "
                                   "credentials found"));
}

TEST_F(PasswordHookTest, ResolveTargetRefusesSocketsAndSeveralHosts) {
  auto target = ResolveTarget("host=db.example port=6432 user=relay");
  ASSERT_TRUE(target.ok()) << target.status();
  EXPECT_EQ(target->port, 6432);
  EXPECT_THAT(ResolveTarget("host=/var/run/postgresql user=relay").status().message(),
              ::testing::HasSubstr("Unix socket"));
  EXPECT_THAT(ResolveTarget("host=a.example,b.example user=relay").status().message(),
              ::testing::HasSubstr("cluster (writer) endpoint"));
  EXPECT_EQ(ResolveTarget("host='unclosed").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(PasswordHookTest, RequireVerifyFullNamesTheModeFoundAndTheFix) {
  EXPECT_TRUE(RequireVerifyFull("host=db sslmode=verify-full").ok());
  EXPECT_TRUE(RequireVerifyFull("postgresql://db/app?sslmode=verify-full").ok());
  const absl::Status require = RequireVerifyFull("host=db sslmode=require");
  EXPECT_EQ(require.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(require.message(), ::testing::AllOf(::testing::HasSubstr("sslmode=require"),
                                                  ::testing::HasSubstr("add sslmode=verify-full")));
  EXPECT_THAT(RequireVerifyFull("host=db").message(), ::testing::HasSubstr("no sslmode"));
  setenv("PGSSLMODE", "verify-full", 1);
  EXPECT_TRUE(RequireVerifyFull("host=db").ok());
}

}  // namespace
}  // namespace outboxd::pg
