// Kafka client misconfiguration: properties librdkafka rejects end outboxd at once with exit 2;
// security settings that do not match the broker's listener (TLS or SASL against a PLAINTEXT
// listener) are permanent and must end it with exit 4 naming the [kafka] keys to check, not
// leave it retrying forever while the slot pins WAL.

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/status_macros.h"
#include "support/faults_fixture.h"

namespace outboxd::faults {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr char kSecurityKeys[] = "check security.protocol, sasl.* and ssl.* in [kafka]";

class KafkaConfigTest : public FaultsTest {};

TEST_F(KafkaConfigTest, UnknownPropertyNamesIt) {
  config().kafka_properties = {{"no.such.property", "1"}};
  EXPECT_THAT(ExpectExit(ConfigText(), kExitUsage),
              AllOf(HasSubstr("[kafka] \"no.such.property\""), HasSubstr("CONFIGURATION.md")));
}

TEST_F(KafkaConfigTest, PinnedPropertyIsRefused) {
  config().kafka_properties = {{"acks", "1"}};
  EXPECT_THAT(ExpectExit(ConfigText(), kExitUsage),
              AllOf(HasSubstr("\"acks\" = \"1\" is not allowed"), HasSubstr("remove it")));
}

TEST_F(KafkaConfigTest, SslWithUnreadableCaFile) {
  config().kafka_properties = {{"security.protocol", "SSL"},
                               {"ssl.ca.location", "/nonexistent/outboxd-faults-ca.pem"}};
  EXPECT_THAT(
      ExpectExit(ConfigText(), kExitUsage),
      AllOf(HasSubstr("ssl.ca.location"), HasSubstr("security.protocol, sasl.* and ssl.*")));
}

TEST_F(KafkaConfigTest, SslAgainstPlaintextListener) {
  const std::string ca = "/etc/ssl/certs/ca-certificates.crt";
  ASSERT_TRUE(std::filesystem::exists(ca)) << ca << " is missing (package ca-certificates)";
  config().kafka_properties = {{"security.protocol", "SSL"}, {"ssl.ca.location", ca}};
  EXPECT_THAT(ExpectExit(ConfigText(), kExitPermission), HasSubstr(kSecurityKeys));
}

TEST_F(KafkaConfigTest, SaslAgainstPlaintextListener) {
  config().kafka_properties = {{"security.protocol", "SASL_PLAINTEXT"},
                               {"sasl.mechanisms", "PLAIN"},
                               {"sasl.username", "outboxd"},
                               {"sasl.password", "secret"}};
  EXPECT_THAT(ExpectExit(ConfigText(), kExitPermission), HasSubstr(kSecurityKeys));
}

}  // namespace
}  // namespace outboxd::faults
