// No password reaches outboxd's output: `check` and `run`, with a wrong password and with the
// right one supplied through ${VAR}, on a cluster that really checks passwords (scram), with a
// Kafka secret in the config too. The secret strings must appear nowhere in stdout or stderr.
// Also: --log-format=json writes one valid JSON object per line.

#include <sstream>

#include "absl/strings/str_cat.h"
#include "cli_fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/pg_client.h"
#include "harness/slot.h"
#include "harness/status_macros.h"
#include "simdjson.h"

namespace outboxd::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kGoodPassword[] = "Gd-pw-4f9c1e7a";
constexpr char kWrongPassword[] = "Wr-pw-83b2d6c0";
constexpr char kKafkaSecret[] = "Kf-sasl-5e7d2a91";
// Unquoted in the conninfo, its second word makes libpq fail with `missing "=" after
// "Sp-tail-0b6e9f" in connection info string`: libpq itself echoes part of the password.
constexpr char kSpacedPassword[] = "Sp-head-71c3 Sp-tail-0b6e9f";

class SecretsTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    if (HasFatalFailure()) return;
    cluster_ = NewCluster();
    ASSERT_NE(cluster_, nullptr);
    IT_ASSERT_OK_AND_ASSIGN(it::PgClient admin, it::PgClient::Connect(cluster_->admin_conninfo()));
    IT_ASSERT_OK(admin.Exec(absl::StrCat("ALTER ROLE outboxd PASSWORD '", kGoodPassword, "'")));
    IT_ASSERT_OK(
        cluster_->ReplaceHba("local all all trust\n"
                             "host all postgres 127.0.0.1/32 trust\n"
                             "host all all 127.0.0.1/32 scram-sha-256\n"));
    // The password from the environment, through ${VAR}; the Kafka secret likewise. (PLAINTEXT
    // ignores sasl.password, but it is a configured secret all the same.)
    config().pg_conninfo = absl::StrCat(cluster_->conninfo(), " password=${OUTBOXD_IT_PGPW}");
    config().kafka_properties["sasl.password"] = "${OUTBOXD_IT_KAFKA_SECRET}";
  }

  std::map<std::string, std::string> Env(const std::string& password) {
    return {{"OUTBOXD_IT_PGPW", password}, {"OUTBOXD_IT_KAFKA_SECRET", kKafkaSecret}};
  }

  static void ExpectNoSecret(const CliResult& result) {
    for (const char* secret :
         {kGoodPassword, kWrongPassword, kKafkaSecret, "Sp-head-71c3", "Sp-tail-0b6e9f"}) {
      EXPECT_THAT(result.All(), Not(HasSubstr(secret))) << "leaked " << secret;
    }
  }

  std::unique_ptr<faults::DedicatedCluster> cluster_;
};

TEST_F(SecretsTest, CheckWithWrongAndGoodPassword) {
  const CliResult wrong = Check(ConfigText(), Env(kWrongPassword));
  EXPECT_EQ(wrong.exit_code, faults::kExitPermission);
  EXPECT_THAT(LineStartingWith(wrong.out, "FAIL postgres connection:"),
              HasSubstr("password authentication failed"));
  ExpectNoSecret(wrong);

  const CliResult good = Check(ConfigText(), Env(kGoodPassword));
  EXPECT_EQ(good.exit_code, 0);
  EXPECT_TRUE(OnlyPassOrWarn(good.out));
  ExpectNoSecret(good);
}

TEST_F(SecretsTest, RunWithWrongPasswordExitsWithoutPrintingIt) {
  CliProcess* run = StartRun(ConfigText(), Env(kWrongPassword), {"--log-level", "debug"});
  ASSERT_NE(run, nullptr);
  absl::StatusOr<CliResult> ended = run->Wait(absl::Seconds(60));
  IT_ASSERT_OK(ended.status());
  EXPECT_EQ(ended->exit_code, faults::kExitPermission);
  EXPECT_THAT(ended->err, HasSubstr("password authentication failed"));
  ExpectNoSecret(*ended);
}

TEST_F(SecretsTest, RunWithGoodPasswordLogsJsonAndNoSecret) {
  CliProcess* run =
      StartRun(ConfigText(), Env(kGoodPassword), {"--log-format=json", "--log-level", "debug"});
  ASSERT_NE(run, nullptr);
  IT_ASSERT_OK_AND_ASSIGN(it::PgClient pg, it::PgClient::Connect(absl::StrCat(
                                               cluster_->conninfo(), " password=", kGoodPassword)));
  IT_ASSERT_OK(it::WaitForSlotStreaming(pg, slot(), publication(), absl::Seconds(30)));
  absl::StatusOr<CliResult> ended = run->Terminate(absl::Seconds(30));
  IT_ASSERT_OK(ended.status());
  EXPECT_EQ(ended->exit_code, 0);
  ExpectNoSecret(*ended);

  // Every stderr line is one JSON object with ts, level and msg.
  std::istringstream lines(ended->err);
  std::string line;
  int count = 0;
  simdjson::dom::parser parser;
  while (std::getline(lines, line)) {
    ++count;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(line).get(doc), simdjson::SUCCESS) << line;
    std::string_view ts, level, msg;
    EXPECT_EQ(doc["ts"].get(ts), simdjson::SUCCESS) << line;
    EXPECT_EQ(doc["level"].get(level), simdjson::SUCCESS) << line;
    EXPECT_EQ(doc["msg"].get(msg), simdjson::SUCCESS) << line;
  }
  EXPECT_GE(count, 2);  // At least "starting" and "exiting".
}

TEST_F(SecretsTest, PasswordEchoedByLibpqIsScrubbed) {
  const CliResult check = Check(ConfigText(), Env(kSpacedPassword));
  EXPECT_EQ(check.exit_code, faults::kExitServerSetup);
  EXPECT_THAT(LineStartingWith(check.out, "FAIL postgres connection:"),
              HasSubstr("missing \"=\" after \"********\""));
  ExpectNoSecret(check);

  CliProcess* run = StartRun(ConfigText(), Env(kSpacedPassword));
  ASSERT_NE(run, nullptr);
  absl::StatusOr<CliResult> ended = run->Wait(absl::Seconds(60));
  IT_ASSERT_OK(ended.status());
  EXPECT_EQ(ended->exit_code, faults::kExitUsage);
  EXPECT_THAT(ended->err, HasSubstr("missing \"=\" after \"********\""));
  ExpectNoSecret(*ended);
}

}  // namespace
}  // namespace outboxd::cli
