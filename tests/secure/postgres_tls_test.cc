// TLS to Postgres: outboxd streams over sslmode=verify-full from a TLS-only cluster (the
// walsender's pg_stat_ssl row proves the replication connection used TLS), and a certificate it
// must not trust, a host name the certificate does not cover, a plaintext attempt and a server
// without TLS each end the run with exit 4 (or 3) and a message that names the fix.

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/delivery_check.h"
#include "harness/kafka_consumer.h"
#include "harness/outbox_writer.h"
#include "harness/pg_client.h"
#include "harness/slot.h"
#include "harness/status_macros.h"
#include "support/faults_fixture.h"
#include "support/secure_servers.h"

namespace outboxd::secure {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

class PostgresTlsTest : public faults::FaultsTest {
 protected:
  void SetUp() override {
    faults::FaultsTest::SetUp();
    if (HasFatalFailure()) return;
    IT_ASSERT_OK_AND_ASSIGN(server_, TlsPostgres(env().scripts_dir));
    IT_ASSERT_OK_AND_ASSIGN(it::PgClient pg,
                            it::PgClient::Connect(server_->Get("OUTBOXD_TEST_PG_CONNINFO")));
    tls_pg_ = std::make_unique<it::PgClient>(std::move(pg));
    IT_ASSERT_OK_AND_ASSIGN(it::PgClient admin,
                            it::PgClient::Connect(server_->Get("OUTBOXD_TEST_PG_ADMIN_CONNINFO")));
    tls_admin_ = std::make_unique<it::PgClient>(std::move(admin));
    IT_ASSERT_OK(it::CreateOutboxTable(*tls_pg_, table()));
    config().pg_conninfo = server_->Get("OUTBOXD_TEST_PG_CONNINFO");
  }

  void TearDown() override {
    faults::FaultsTest::TearDown();  // Kills outboxd first, so the slot is free to drop.
    if (tls_admin_ == nullptr) return;
    IT_EXPECT_OK(it::DropSlotIfExists(*tls_admin_, slot(), absl::Seconds(20)));
    IT_EXPECT_OK(tls_admin_->Exec(
        absl::StrCat("DROP PUBLICATION IF EXISTS ", it::QuoteIdent(publication()))));
    IT_EXPECT_OK(tls_admin_->Exec(absl::StrCat("DROP TABLE IF EXISTS ", it::QuoteIdent(table()))));
  }

  // A conninfo for role outboxd on the TLS cluster with `rest` (host, sslmode, sslrootcert...).
  std::string Conninfo(const std::string& rest) const {
    return absl::StrCat("port=", server_->Get("OUTBOXD_TEST_PG_PORT"),
                        " dbname=app user=outboxd password=outboxd ", rest);
  }
  std::string ca_file() const { return server_->Get("OUTBOXD_TEST_PG_CA_FILE"); }

  ScriptedServer* server_ = nullptr;
  std::unique_ptr<it::PgClient> tls_pg_;
  std::unique_ptr<it::PgClient> tls_admin_;
};

TEST_F(PostgresTlsTest, RelaysRowsOverVerifyFull) {
  ASSERT_THAT(config().pg_conninfo, HasSubstr("sslmode=verify-full"));
  IT_ASSERT_OK_AND_ASSIGN(it::OutboxdProcess * outboxd, Launch(ConfigText()));
  IT_ASSERT_OK(it::WaitForSlotStreaming(*tls_pg_, slot(), publication(), absl::Seconds(30)));

  // The walsender that holds the slot serves outboxd's replication connection: over TLS.
  IT_ASSERT_OK_AND_ASSIGN(std::vector<it::PgRow> ssl, tls_admin_->Query(R"sql(
      SELECT s.ssl::text, s.version FROM pg_replication_slots r
      JOIN pg_stat_ssl s ON s.pid = r.active_pid WHERE r.slot_name = $1)sql",
                                                                        {slot()}));
  ASSERT_EQ(ssl.size(), 1u);
  EXPECT_EQ(ssl[0][0], "true");
  EXPECT_THAT(ssl[0][1].value_or(""), HasSubstr("TLS"));

  IT_ASSERT_OK(tls_pg_->Exec("BEGIN"));
  IT_ASSERT_OK_AND_ASSIGN(
      std::vector<it::ExpectedEvent> expected,
      it::InsertOutboxRows(*tls_pg_, table(), topic_prefix(),
                           {{"Order", "order-1", "OrderCreated", R"({"n": 1})"},
                            {"Order", "order-1", "OrderPaid", R"({"n": 2})"},
                            {"Customer", "cust-7", "CustomerRegistered", R"({"n": 3})"}}));
  IT_ASSERT_OK(tls_pg_->Exec("COMMIT"));

  IT_ASSERT_OK_AND_ASSIGN(std::vector<it::KafkaRecord> records,
                          it::ConsumeFromBeginning(env().kafka_bootstrap,
                                                   {.topics = {Topic("Order"), Topic("Customer")},
                                                    .min_records = expected.size(),
                                                    .timeout = absl::Seconds(30)}));
  const it::DeliveryReport report = it::CheckDelivery(expected, records, {});
  EXPECT_EQ(report.missing, 0u) << report.Summary();
  EXPECT_EQ(report.wrong_content, 0u) << report.Summary();
  EXPECT_EQ(report.order_violations, 0u) << report.Summary();

  IT_ASSERT_OK_AND_ASSIGN(it::ExitStatus stopped, outboxd->Stop(absl::Seconds(20)));
  EXPECT_TRUE(stopped.ExitedZero()) << stopped.ToString();
}

TEST_F(PostgresTlsTest, CertificateFromAnotherCaIsRefused) {
  const std::string other_ca_dir = UniqueName("other_ca");
  const std::string dir = (std::filesystem::temp_directory_path() / other_ca_dir).string();
  IT_ASSERT_OK_AND_ASSIGN(std::string other_ca, MakeOtherCa(env().scripts_dir, dir));
  config().pg_conninfo =
      Conninfo(absl::StrCat("host=localhost sslmode=verify-full sslrootcert=", other_ca));
  const std::string log = ExpectExit(ConfigText(), faults::kExitPermission);
  EXPECT_THAT(log, AllOf(HasSubstr("certificate verify failed"), HasSubstr("set sslrootcert")));
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

TEST_F(PostgresTlsTest, HostNameOutsideTheCertificateIsRefused) {
  // hostaddr reaches the server while host= is the name verify-full checks.
  config().pg_conninfo =
      Conninfo(absl::StrCat("host=db.outboxd.invalid hostaddr=127.0.0.1 sslmode=verify-full ",
                            "sslrootcert=", ca_file()));
  const std::string log = ExpectExit(ConfigText(), faults::kExitPermission);
  EXPECT_THAT(log, AllOf(HasSubstr("does not match host name \"db.outboxd.invalid\""),
                         HasSubstr("subjectAltName")));
}

TEST_F(PostgresTlsTest, PlaintextIsRefusedWithTheFix) {
  config().pg_conninfo = Conninfo("host=127.0.0.1 sslmode=disable");
  const std::string log = ExpectExit(ConfigText(), faults::kExitPermission);
  EXPECT_THAT(log, AllOf(HasSubstr("no encryption"), HasSubstr("sslmode=verify-full")));
}

// A CA file that is not there is a config mistake, reported as such (exit 2), not retried.
TEST_F(PostgresTlsTest, MissingCaFileIsAConfigError) {
  config().pg_conninfo =
      Conninfo("host=localhost sslmode=verify-full sslrootcert=/nonexistent/outboxd-ca.crt");
  const std::string log = ExpectExit(ConfigText(), faults::kExitUsage);
  EXPECT_THAT(log,
              HasSubstr("root certificate file \"/nonexistent/outboxd-ca.crt\" does not exist"));
}

// The shared test cluster runs without TLS: verify-full against it is a server setting to fix.
TEST_F(PostgresTlsTest, ServerWithoutTlsIsASetupError) {
  config().pg_conninfo =
      absl::StrCat(env().pg_conninfo, " sslmode=verify-full sslrootcert=", ca_file());
  const std::string log = ExpectExit(ConfigText(), faults::kExitServerSetup);
  EXPECT_THAT(log, AllOf(HasSubstr("server does not support SSL"), HasSubstr("ssl = on")));
}

}  // namespace
}  // namespace outboxd::secure
