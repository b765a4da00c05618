#include "daemon/secrets.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd::daemon {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(SecretsOfTest, ConninfoAndKafkaSecretsAreScrubbed) {
  config::Config config;
  config.postgres.conninfo = "host=db user=app password='pg secret 1'";
  config.kafka = {{"bootstrap.servers", "k:1"},
                  {"sasl.password", "kafka-secret-2"},
                  {"sasl.username", "app"},
                  {"ssl.key.password", "key-secret-3"}};
  const Redactor redactor = SecretsOf(config);
  const std::string text =
      redactor.Scrub("pg secret 1 / kafka-secret-2 / key-secret-3 / user app at k:1");
  EXPECT_EQ(text, "******** / ******** / ******** / user app at k:1");
}

TEST(SecretsOfTest, PasswordEqualToTheUserNameIsNotScrubbed) {
  config::Config config;
  config.postgres.conninfo = "host=db user=outboxd password=outboxd";
  const Redactor redactor = SecretsOf(config);
  EXPECT_THAT(redactor.Scrub("role outboxd has no REPLICATION"), HasSubstr("outboxd"));
  EXPECT_THAT(redactor.Scrub("x"), Not(HasSubstr("*")));
}

}  // namespace
}  // namespace outboxd::daemon
