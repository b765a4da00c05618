// RDS IAM under a real Postgres: the password libpq sends on each connection attempt is the
// token src/cloud makes at that moment (botocore-identical, rds_token_test.cc). Postgres
// cannot check a SigV4 token, so the role's password is set to the token of a frozen clock:
// attempts at that instant log in, and one a second later (a new token) is refused, so the
// password is made per attempt rather than taken from the conninfo.
//
// Needs OUTBOXD_TEST_PG_CONNINFO's server and a superuser OUTBOXD_TEST_PG_ADMIN_CONNINFO
// (scripts/pg's pg.env); it prepends one scram-sha-256 pg_hba.conf line for its own role.
#include <cstdlib>
#include <string>

#include "cloud/rds_token.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pg/connect_password.h"
#include "pg/connection.h"

namespace outboxd {
namespace {

constexpr char kRole[] = "outboxd_rds_iam";

cloud::AwsCredentials TestCredentials() {
  return {"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "session", std::nullopt,
          "test"};
}

class RdsIamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* admin = std::getenv("OUTBOXD_TEST_PG_ADMIN_CONNINFO");
    const char* conninfo = std::getenv("OUTBOXD_TEST_PG_CONNINFO");
    if (admin == nullptr || conninfo == nullptr) GTEST_SKIP() << "no test Postgres";
    admin_ = admin;
    auto target = pg::ResolveTarget(conninfo);
    ASSERT_TRUE(target.ok()) << target.status();
    host_ = target->host;
    port_ = target->port;
    Admin(std::string("DROP ROLE IF EXISTS ") + kRole);
    Admin(std::string("CREATE ROLE ") + kRole + " LOGIN REPLICATION");
    // One scram line for this role ahead of the cluster's own (trust) rules. Read first: COPY
    // truncates its file before its query runs. CSV with delimiter and quote bytes no line has
    // writes each line as it is (tabs included).
    const std::string hba = HbaFile();
    const std::string current = AdminValue("SELECT pg_read_file(current_setting('hba_file'))");
    std::string lines = std::string("host all ") + kRole + " 0.0.0.0/0 scram-sha-256\n";
    for (size_t start = 0; start < current.size();) {
      const size_t end = std::min(current.find('\n', start), current.size());
      const std::string line = current.substr(start, end - start);
      // Blank lines would come out as CSV's quoted empty field, which pg_hba.conf refuses.
      if (!line.empty() && line.find(kRole) == std::string::npos) lines += line + "\n";
      start = end + 1;
    }
    Admin("COPY (SELECT unnest(string_to_array(rtrim($hba$" + lines +
          "$hba$, E'\\n'), E'\\n'))) TO '" + hba +
          "' WITH (FORMAT csv, DELIMITER E'\\x01', QUOTE E'\\x02')");
    Admin("SELECT pg_reload_conf()");
    ASSERT_EQ(AdminValue("SELECT count(*) FROM pg_hba_file_rules WHERE error IS NOT NULL"), "0");
    ASSERT_EQ(AdminValue("SELECT user_name[1] FROM pg_hba_file_rules WHERE line_number = 1"),
              kRole);
  }
  void TearDown() override { pg::SetPasswordHook(nullptr); }

  std::string HbaFile() { return AdminValue("SHOW hba_file"); }
  std::string AdminValue(const std::string& sql) {
    auto conn = pg::Connection::OpenOrdinary(admin_, "rds_iam_test");
    EXPECT_TRUE(conn.ok()) << conn.status();
    if (!conn.ok()) return "";
    auto result = conn->Query(sql, "admin");
    EXPECT_TRUE(result.ok()) << result.status();
    return result.ok() ? PQgetvalue(result->get(), 0, 0) : "";
  }
  void Admin(const std::string& sql) {
    auto conn = pg::Connection::OpenOrdinary(admin_, "rds_iam_test");
    ASSERT_TRUE(conn.ok()) << conn.status();
    auto result = conn->Query(sql, "admin");
    ASSERT_TRUE(result.ok()) << result.status();
  }
  std::string Token(std::chrono::system_clock::time_point at) {
    auto token = cloud::MakeRdsAuthToken(TestCredentials(), {host_, port_, kRole, "eu-west-1"}, at);
    EXPECT_TRUE(token.ok()) << token.status();
    return *token;
  }

  std::string admin_;
  std::string host_;
  uint16_t port_ = 0;
};

TEST_F(RdsIamTest, EachAttemptLogsInWithTheTokenOfItsMoment) {
  const auto frozen = std::chrono::system_clock::time_point(std::chrono::seconds(1796666400));
  Admin(std::string("ALTER ROLE ") + kRole + " PASSWORD '" + Token(frozen) + "'");
  auto now = frozen;
  int attempts = 0;
  pg::SetPasswordHook([&](const pg::ConnectTarget& target) -> absl::StatusOr<std::string> {
    ++attempts;
    return cloud::MakeRdsAuthToken(TestCredentials(),
                                   {target.host, target.port, target.user, "eu-west-1"}, now);
  });
  // The conninfo's own password is wrong: only the hook's token can log in.
  const std::string conninfo = "host=" + host_ + " port=" + std::to_string(port_) +
                               " dbname=app user=" + kRole + " password=not-the-token";
  for (const bool replication : {false, true}) {
    auto conn = replication ? pg::Connection::Open(conninfo)
                            : pg::Connection::OpenOrdinary(conninfo, "rds_iam_test");
    ASSERT_TRUE(conn.ok()) << conn.status();
    auto user = conn->Query("SELECT current_user", "whoami");
    ASSERT_TRUE(user.ok()) << user.status();
    EXPECT_STREQ(PQgetvalue(user->get(), 0, 0), kRole);
  }
  EXPECT_EQ(attempts, 2);
  now += std::chrono::seconds(1);  // A new X-Amz-Date: another token, which Postgres refuses.
  auto refused = pg::Connection::OpenOrdinary(conninfo, "rds_iam_test");
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kPermissionDenied) << refused.status();
  EXPECT_THAT(refused.status().message(), ::testing::HasSubstr("password authentication failed"));
  EXPECT_EQ(attempts, 3);
}

}  // namespace
}  // namespace outboxd
