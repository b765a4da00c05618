// The check command's exit code and output, from hand-made results (the checks themselves run
// against real servers in tests/cli), and the AWS IAM wiring's refusals and check lines.

#include "daemon/check_command.h"

#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "daemon/cloud_auth.h"
#include "gtest/gtest.h"
#include "kafka/oauthbearer.h"
#include "pg/connect_password.h"

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

// AWS IAM wiring: the start-up refusals and the `check` lines (daemon/cloud_auth.h).
class AwsIamTest : public ::testing::Test {
 protected:
  void TearDown() override {
    pg::SetPasswordHook(nullptr);
    kafka::SetTokenHook(nullptr);
  }
  static std::unique_ptr<cloud::AwsCredentialsProvider> EnvironmentProvider(
      std::map<std::string, std::string> vars) {
    cloud::EnvLookup env = [vars = std::move(vars)](std::string_view name) {
      const auto found = vars.find(std::string(name));
      return found == vars.end() ? std::nullopt : std::optional<std::string>(found->second);
    };
    std::vector<std::unique_ptr<cloud::CredentialSource>> sources;
    sources.push_back(cloud::MakeEnvironmentSource(env));
    return std::make_unique<cloud::AwsCredentialsProvider>(std::move(sources),
                                                           cloud::SystemWallClock());
  }
  static config::Config RdsConfig(std::string conninfo) {
    config::Config config;
    config.postgres.conninfo = std::move(conninfo);
    config.postgres.iam_auth = config::IamAuth::kAwsRds;
    config.postgres.aws_region = "eu-west-1";
    return config;
  }
};

TEST_F(AwsIamTest, RdsIamRefusesASslmodeBelowVerifyFull) {
  auto provider = EnvironmentProvider({});
  const absl::Status status =
      InstallAwsIam(RdsConfig("host=db.example user=relay sslmode=require"), *provider, "ua");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(status.message()).find("add sslmode=verify-full"), std::string::npos)
      << status;
}

TEST_F(AwsIamTest, RdsIamMakesEachPasswordFromTheChain) {
  auto provider = EnvironmentProvider(
      {{"AWS_ACCESS_KEY_ID", "AKIDEXAMPLE"}, {"AWS_SECRET_ACCESS_KEY", "very-secret-key"}});
  const config::Config config =
      RdsConfig("host=db.example port=5433 user=relay sslmode=verify-full");
  ASSERT_TRUE(InstallAwsIam(config, *provider, "ua").ok());
  auto password = pg::PasswordForAttempt(config.postgres.conninfo);
  ASSERT_TRUE(password.ok()) << password.status();
  ASSERT_TRUE(password->has_value());
  EXPECT_EQ((*password)->rfind("db.example:5433/?Action=connect&DBUser=relay&", 0), 0u)
      << **password;
  const CheckResults results = CheckAwsIam(config, *provider);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].outcome, CheckOutcome::kPass);
  EXPECT_NE(results[0].detail.find("from environment"), std::string::npos) << results[0].detail;
  EXPECT_EQ(results[0].detail.find("very-secret-key"), std::string::npos);
  EXPECT_EQ(results[1].outcome, CheckOutcome::kPass);
}

TEST_F(AwsIamTest, CheckFailsWithWhatTheChainLacked) {
  auto provider = EnvironmentProvider({});
  config::Config config;
  config.kafka_iam = {.aws_msk_iam = true, .aws_region = "us-east-1"};
  const CheckResults results = CheckAwsIam(config, *provider);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].outcome, CheckOutcome::kFail);
  EXPECT_TRUE(results[0].permission);
  EXPECT_NE(results[0].detail.find("AWS_ACCESS_KEY_ID is not set"), std::string::npos)
      << results[0].detail;
}

}  // namespace
}  // namespace outboxd::daemon
