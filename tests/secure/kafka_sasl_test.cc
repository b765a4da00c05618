// SASL_SSL with SCRAM-SHA-512 to Kafka: outboxd relays rows to a broker's SASL_SSL listener
// (TLS verified against a throwaway CA, SCRAM login) and the records read back over that same
// listener are the committed rows; a wrong password or an untrusted broker certificate ends the
// run with exit 4 and a message naming the [kafka] settings to fix.

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/delivery_check.h"
#include "harness/kafka_consumer.h"
#include "harness/outbox_writer.h"
#include "harness/status_macros.h"
#include "support/faults_fixture.h"
#include "support/secure_servers.h"

namespace outboxd::secure {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

class KafkaSaslTest : public faults::FaultsTest {
 protected:
  void SetUp() override {
    faults::FaultsTest::SetUp();
    if (HasFatalFailure()) return;
    IT_ASSERT_OK_AND_ASSIGN(broker_, ScramKafka(env().scripts_dir));
    bootstrap_ = broker_->Get("OUTBOXD_TEST_KAFKA_SASL_SSL_BOOTSTRAP");
    ASSERT_FALSE(bootstrap_.empty()) << "kafka.env of " << broker_->dir() << " has no SASL_SSL";
    client_ = {
        {"security.protocol", "SASL_SSL"},
        {"sasl.mechanism", "SCRAM-SHA-512"},
        {"sasl.username", broker_->Get("OUTBOXD_TEST_KAFKA_SASL_USER")},
        {"sasl.password", broker_->Get("OUTBOXD_TEST_KAFKA_SASL_PASSWORD")},
        {"ssl.ca.location", broker_->Get("OUTBOXD_TEST_KAFKA_CA_FILE")},
    };
    config().kafka_bootstrap = bootstrap_;
    config().kafka_properties = client_;
  }

  ScriptedServer* broker_ = nullptr;
  std::string bootstrap_;
  std::map<std::string, std::string> client_;  // what outboxd and the consumer log in with
};

TEST_F(KafkaSaslTest, RelaysRowsOverSaslSsl) {
  IT_ASSERT_OK_AND_ASSIGN(it::OutboxdProcess * outboxd, LaunchStreaming(ConfigText()));
  IT_ASSERT_OK(pg().Exec("BEGIN"));
  IT_ASSERT_OK_AND_ASSIGN(
      std::vector<it::ExpectedEvent> expected,
      it::InsertOutboxRows(pg(), table(), topic_prefix(),
                           {{"Order", "order-1", "OrderCreated", R"({"n": 1})"},
                            {"Order", "order-1", "OrderPaid", R"({"n": 2})"},
                            {"Customer", "cust-7", "CustomerRegistered", R"({"n": 3})"}}));
  IT_ASSERT_OK(pg().Exec("COMMIT"));

  // Read back over the SASL_SSL listener, logged in as the same user.
  IT_ASSERT_OK_AND_ASSIGN(std::vector<it::KafkaRecord> records,
                          it::ConsumeFromBeginning(bootstrap_,
                                                   {.topics = {Topic("Order"), Topic("Customer")},
                                                    .min_records = expected.size(),
                                                    .timeout = absl::Seconds(30)},
                                                   client_));
  const it::DeliveryReport report = it::CheckDelivery(expected, records, {});
  EXPECT_EQ(report.missing, 0u) << report.Summary();
  EXPECT_EQ(report.wrong_content, 0u) << report.Summary();
  EXPECT_EQ(report.order_violations, 0u) << report.Summary();

  IT_ASSERT_OK_AND_ASSIGN(it::ExitStatus stopped, outboxd->Stop(absl::Seconds(20)));
  EXPECT_TRUE(stopped.ExitedZero()) << stopped.ToString();
}

TEST_F(KafkaSaslTest, WrongPasswordExitsWithThePermissionCode) {
  config().kafka_properties["sasl.password"] = "not-the-password";
  const std::string log = ExpectExit(ConfigText(), faults::kExitPermission);
  EXPECT_THAT(log, AllOf(HasSubstr("Kafka authentication failed"), HasSubstr("SCRAM-SHA-512"),
                         HasSubstr("sasl.*")));
  EXPECT_THAT(log, ::testing::Not(HasSubstr("not-the-password")));
}

TEST_F(KafkaSaslTest, BrokerCertificateFromAnotherCaIsRefused) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / UniqueName("other_ca")).string();
  IT_ASSERT_OK_AND_ASSIGN(std::string other_ca, MakeOtherCa(env().scripts_dir, dir));
  config().kafka_properties["ssl.ca.location"] = other_ca;
  const std::string log = ExpectExit(ConfigText(), faults::kExitPermission);
  EXPECT_THAT(log, AllOf(HasSubstr("certificate verify failed"), HasSubstr("ssl.*")));
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

}  // namespace
}  // namespace outboxd::secure
