// ${NAME} references in the config file and the OUTBOXD_KAFKA_SASL_PASSWORD override; every
// lookup goes through a fake environment.

#include "config_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd::config {
namespace {

using ::outboxd::config::testing::ErrorOf;
using ::outboxd::config::testing::FakeEnv;
using ::outboxd::config::testing::Parse;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Pair;

constexpr std::string_view kWithReference = R"([postgres]
conninfo = "host=db user=app password=${PGPASSWORD}"
tables = ["public.outbox"]

[kafka]
"bootstrap.servers" = "${BROKERS}"
"sasl.password" = "${KAFKA_PW}"
)";

TEST(EnvExpandTest, ExpandsReferencesInPostgresAndKafkaValues) {
  auto config = Parse(
      kWithReference,
      FakeEnv({{"PGPASSWORD", "pg pw'1"}, {"BROKERS", "k1:9092,k2:9092"}, {"KAFKA_PW", "kpw"}}));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->postgres.conninfo, "host=db user=app password=pg pw'1");
  EXPECT_THAT(config->kafka, Contains(Pair("bootstrap.servers", "k1:9092,k2:9092")));
  EXPECT_THAT(config->kafka, Contains(Pair("sasl.password", "kpw")));
}

TEST(EnvExpandTest, UnsetVariableNamesTheVariableAndTheLineButNoValue) {
  const std::string error =
      ErrorOf(kWithReference, FakeEnv({{"BROKERS", "k:1"}, {"KAFKA_PW", "kafka-secret"}}));
  EXPECT_THAT(error, AllOf(HasSubstr("outboxd.toml:2:"), HasSubstr("[postgres] conninfo"),
                           HasSubstr("${PGPASSWORD}"), HasSubstr("is not set"), HasSubstr("$${")));
  EXPECT_THAT(error, AllOf(Not(HasSubstr("host=db")), Not(HasSubstr("kafka-secret"))));
}

TEST(EnvExpandTest, EmptyVariableIsAnError) {
  const std::string error =
      ErrorOf(kWithReference, FakeEnv({{"PGPASSWORD", ""}, {"BROKERS", "k:1"}, {"KAFKA_PW", "x"}}));
  EXPECT_THAT(error, AllOf(HasSubstr("PGPASSWORD"), HasSubstr("is empty")));
}

TEST(EnvExpandTest, KafkaErrorNamesItsKey) {
  const std::string error =
      ErrorOf(kWithReference, FakeEnv({{"PGPASSWORD", "p"}, {"BROKERS", "k:1"}}));
  EXPECT_THAT(error, AllOf(HasSubstr("outboxd.toml:7:"), HasSubstr("[kafka] sasl.password"),
                           HasSubstr("${KAFKA_PW}")));
}

TEST(EnvExpandTest, DollarDollarBraceIsALiteral) {
  auto config = Parse(R"([postgres]
conninfo = "host=db password=a$${b}c$d"
tables = ["public.outbox"]
[kafka]
"bootstrap.servers" = "k:1"
)");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->postgres.conninfo, "host=db password=a${b}c$d");
}

TEST(EnvExpandTest, ExpandedValuesAreNotExpandedAgain) {
  auto config = Parse(R"([postgres]
conninfo = "host=db password=${A}"
tables = ["public.outbox"]
[kafka]
"bootstrap.servers" = "k:1"
)",
                      FakeEnv({{"A", "${B}"}, {"B", "no"}}));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->postgres.conninfo, "host=db password=${B}");
}

TEST(EnvExpandTest, MalformedReferencesAreErrors) {
  for (const char* value : {"${", "${}", "${1X}", "${A-B}", "pre ${UNCLOSED"}) {
    const std::string text = std::string("[postgres]\nconninfo = \"") + value +
                             "\"\ntables = [\"public.outbox\"]\n[kafka]\n\"bootstrap.servers\" = "
                             "\"k:1\"\n";
    EXPECT_THAT(ErrorOf(text),
                AllOf(HasSubstr("outboxd.toml:2:"), HasSubstr("malformed environment reference")))
        << value;
  }
}

TEST(EnvExpandTest, TopicPlaceholderIsNotAVariable) {
  auto config = Parse(R"([postgres]
conninfo = "host=db"
tables = ["${SCHEMA}.outbox"]
[kafka]
"bootstrap.servers" = "k:1"
[outbox]
topic = "events.${aggregatetype}"
dead_letter_topic = "${ENV}.dlq"
)",
                      FakeEnv({{"SCHEMA", "app"}, {"ENV", "prod"}}));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->outbox.topic, "events.${aggregatetype}");
  EXPECT_EQ(config->outbox.dead_letter_topic, "prod.dlq");
  EXPECT_EQ(config->postgres.tables[0].schema, "app");
}

TEST(EnvExpandTest, SaslPasswordOverride) {
  auto config = Parse(testing::kMinimal, FakeEnv({{"OUTBOXD_KAFKA_SASL_PASSWORD", "from-env"}}));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_THAT(config->kafka, Contains(Pair("sasl.password", "from-env")));
  auto replaced = Parse(std::string(testing::kMinimal) + "\"sasl.password\" = \"in-file\"\n",
                        FakeEnv({{"OUTBOXD_KAFKA_SASL_PASSWORD", "from-env"}}));
  ASSERT_TRUE(replaced.ok()) << replaced.status();
  EXPECT_THAT(replaced->kafka, Contains(Pair("sasl.password", "from-env")));
  EXPECT_THAT(replaced->kafka, Not(Contains(Pair("sasl.password", "in-file"))));
  EXPECT_THAT(ErrorOf(testing::kMinimal, FakeEnv({{"OUTBOXD_KAFKA_SASL_PASSWORD", ""}})),
              HasSubstr("OUTBOXD_KAFKA_SASL_PASSWORD is set but empty"));
}

}  // namespace
}  // namespace outboxd::config
