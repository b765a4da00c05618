// Parsing of valid files: the documented example, defaults, environment overrides and the
// conversion of [kafka] values to librdkafka's strings.

#include "config/config.h"

#include <cstdio>
#include <fstream>

#include "config_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd::config {
namespace {

using ::outboxd::config::testing::ErrorOf;
using ::outboxd::config::testing::FakeEnv;
using ::outboxd::config::testing::kMinimal;
using ::outboxd::config::testing::Parse;
using ::outboxd::config::testing::WithMinimal;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

// The example from the documentation, verbatim apart from the placement entry.
constexpr std::string_view kFullExample = R"(
[postgres]
conninfo = "host=127.0.0.1 port=5432 dbname=app user=outboxd"   # libpq string
slot = "outboxd"
publication = "outboxd"
tables = ["public.outbox"]
create_slot = true
status_interval_ms = 1000
slot_check_interval_ms = 5000
min_safe_wal_size_mb = 1024

[kafka]
"bootstrap.servers" = "127.0.0.1:9092"

[outbox]
topic = "outbox.event.${aggregatetype}"
id_column = "id"
aggregate_type_column = "aggregatetype"
aggregate_id_column = "aggregateid"
payload_column = "payload"
additional_placement = ["type:header:type"]
tombstone_on_empty_payload = false
dead_letter_topic = "outbox.dlq"

[relay]
shutdown_timeout_ms = 10000
)";

TEST(ParseConfigTest, FullExampleParses) {
  absl::StatusOr<Config> config = Parse(kFullExample);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->postgres.conninfo, "host=127.0.0.1 port=5432 dbname=app user=outboxd");
  EXPECT_EQ(config->postgres.slot, "outboxd");
  EXPECT_EQ(config->postgres.publication, "outboxd");
  EXPECT_THAT(config->postgres.tables, ElementsAre(TableName{"public", "outbox"}));
  EXPECT_TRUE(config->postgres.create_slot);
  EXPECT_EQ(config->postgres.status_interval_ms, 1000);
  EXPECT_EQ(config->postgres.slot_check_interval_ms, 5000);
  EXPECT_EQ(config->postgres.min_safe_wal_size_mb, 1024);
  EXPECT_THAT(config->kafka, ElementsAre(Pair("bootstrap.servers", "127.0.0.1:9092")));
  EXPECT_EQ(config->outbox.topic, "outbox.event.${aggregatetype}");
  EXPECT_THAT(config->outbox.additional_placement, ElementsAre(HeaderPlacement{"type", "type"}));
  EXPECT_EQ(config->outbox.dead_letter_topic, "outbox.dlq");
  EXPECT_EQ(config->relay.shutdown_timeout_ms, 10000);
}

TEST(ParseConfigTest, MinimalFileGetsDebeziumDefaults) {
  absl::StatusOr<Config> config = Parse(kMinimal);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->postgres.slot, "outboxd");
  EXPECT_EQ(config->postgres.publication, "outboxd");
  EXPECT_TRUE(config->postgres.create_slot);
  EXPECT_TRUE(config->postgres.create_publication);
  EXPECT_EQ(config->postgres.status_interval_ms, 1000);
  EXPECT_EQ(config->postgres.slot_check_interval_ms, 5000);
  EXPECT_EQ(config->postgres.min_safe_wal_size_mb, PostgresConfig::kAutomaticMinSafeWal);
  const OutboxConfig& outbox = config->outbox;
  EXPECT_EQ(outbox.topic, "outbox.event.${aggregatetype}");
  EXPECT_EQ(outbox.id_column, "id");
  EXPECT_EQ(outbox.aggregate_type_column, "aggregatetype");
  EXPECT_EQ(outbox.aggregate_id_column, "aggregateid");
  EXPECT_EQ(outbox.payload_column, "payload");
  EXPECT_TRUE(outbox.additional_placement.empty());
  EXPECT_FALSE(outbox.tombstone_on_empty_payload);
  EXPECT_EQ(outbox.dead_letter_topic, "outbox.dlq");
  EXPECT_EQ(config->relay.shutdown_timeout_ms, 10000);
}

TEST(ParseConfigTest, CustomValues) {
  absl::StatusOr<Config> config = Parse(R"(
[postgres]
conninfo = "dbname=app"
slot = "orders_slot_2"
publication = "Orders Pub"
tables = ["outbox", "billing.outbox_events"]
create_slot = false
create_publication = false
status_interval_ms = 250
slot_check_interval_ms = 100
min_safe_wal_size_mb = 0
[kafka]
"bootstrap.servers" = "a:1,b:2"
[outbox]
topic = "events-${routedByValue}-v1"
id_column = "event_id"
aggregate_type_column = "kind"
aggregate_id_column = "key"
payload_column = "body"
additional_placement = ["type:header", "tenant:header:x-tenant"]
tombstone_on_empty_payload = true
dead_letter_topic = "dead_letters"
[relay]
shutdown_timeout_ms = 0
)");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->postgres.slot, "orders_slot_2");
  EXPECT_EQ(config->postgres.publication, "Orders Pub");
  EXPECT_THAT(config->postgres.tables,
              ElementsAre(TableName{"public", "outbox"}, TableName{"billing", "outbox_events"}));
  EXPECT_FALSE(config->postgres.create_slot);
  EXPECT_FALSE(config->postgres.create_publication);
  EXPECT_EQ(config->postgres.status_interval_ms, 250);
  EXPECT_EQ(config->postgres.slot_check_interval_ms, 100);
  EXPECT_EQ(config->postgres.min_safe_wal_size_mb, 0);  // 0 turns the threshold off.
  EXPECT_EQ(config->outbox.topic, "events-${routedByValue}-v1");
  EXPECT_EQ(config->outbox.id_column, "event_id");
  EXPECT_EQ(config->outbox.aggregate_type_column, "kind");
  EXPECT_EQ(config->outbox.aggregate_id_column, "key");
  EXPECT_EQ(config->outbox.payload_column, "body");
  EXPECT_THAT(config->outbox.additional_placement,
              ElementsAre(HeaderPlacement{"type", "type"}, HeaderPlacement{"tenant", "x-tenant"}));
  EXPECT_TRUE(config->outbox.tombstone_on_empty_payload);
  EXPECT_EQ(config->outbox.dead_letter_topic, "dead_letters");
  EXPECT_EQ(config->relay.shutdown_timeout_ms, 0);
}

TEST(ParseConfigTest, TableLessOutboxNeedsOnlyMessagePrefixes) {
  auto config = ParseConfig(R"(
[postgres]
conninfo = "dbname=app"
message_prefixes = ["outbox", "billing"]

[kafka]
"bootstrap.servers" = "k:9092"
)",
                            "outboxd.toml", FakeEnv());
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_TRUE(config->postgres.tables.empty());
  EXPECT_THAT(config->postgres.message_prefixes, ::testing::ElementsAre("outbox", "billing"));
}

TEST(ParseConfigTest, FixedTopicWithoutPlaceholderIsAllowed) {
  absl::StatusOr<Config> config = Parse(WithMinimal("[outbox]\ntopic = \"all-events\"\n"));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->outbox.topic, "all-events");
}

TEST(ParseConfigTest, KafkaValuesBecomeLibrdkafkaStrings) {
  absl::StatusOr<Config> config = Parse(R"(
[postgres]
conninfo = "dbname=app"
tables = ["outbox"]
[kafka]
"bootstrap.servers" = "k:9092"
"linger.ms" = 5
"enable.idempotence" = true
"socket.nagle.disable" = false
"batch.num.messages" = 10000
"queue.buffering.backpressure.threshold" = 1.5
"compression.type" = "lz4"
)");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_THAT(
      config->kafka,
      ElementsAre(Pair("batch.num.messages", "10000"), Pair("bootstrap.servers", "k:9092"),
                  Pair("compression.type", "lz4"), Pair("enable.idempotence", "true"),
                  Pair("linger.ms", "5"), Pair("queue.buffering.backpressure.threshold", "1.5"),
                  Pair("socket.nagle.disable", "false")));
}

TEST(ParseConfigTest, UnquotedDottedKafkaKeysAreFlattened) {
  // To TOML, bootstrap.servers = "..." is a nested table; it still means the property.
  absl::StatusOr<Config> config = Parse(R"(
[postgres]
conninfo = "dbname=app"
tables = ["outbox"]
[kafka]
bootstrap.servers = "k:9092"
acks = "all"
[kafka.sasl]
mechanism = "PLAIN"
)");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_THAT(config->kafka, ElementsAre(Pair("acks", "all"), Pair("bootstrap.servers", "k:9092"),
                                         Pair("sasl.mechanism", "PLAIN")));
}

TEST(ParseConfigTest, EnvironmentOverridesConninfoAndBootstrapServers) {
  absl::StatusOr<Config> config =
      Parse(kMinimal, FakeEnv({{"OUTBOXD_POSTGRES_CONNINFO", "host=db password=secret"},
                               {"OUTBOXD_KAFKA_BOOTSTRAP_SERVERS", "broker:9093"}}));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->postgres.conninfo, "host=db password=secret");
  EXPECT_THAT(config->kafka, ElementsAre(Pair("bootstrap.servers", "broker:9093")));
}

TEST(ParseConfigTest, EnvironmentSuppliesKeysLeftOutOfTheFile) {
  absl::StatusOr<Config> config = Parse(R"(
[postgres]
tables = ["outbox"]
[kafka]
"linger.ms" = 1
)",
                                        FakeEnv({{"OUTBOXD_POSTGRES_CONNINFO", "dbname=app"},
                                                 {"OUTBOXD_KAFKA_BOOTSTRAP_SERVERS", "k:1"}}));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->postgres.conninfo, "dbname=app");
  EXPECT_THAT(config->kafka, ElementsAre(Pair("bootstrap.servers", "k:1"), Pair("linger.ms", "1")));
}

TEST(ParseConfigTest, WholeKafkaSectionMayComeFromTheEnvironment) {
  absl::StatusOr<Config> config = Parse("[postgres]\nconninfo = \"x=1\"\ntables = [\"outbox\"]\n",
                                        FakeEnv({{"OUTBOXD_KAFKA_BOOTSTRAP_SERVERS", "k:1"}}));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_THAT(config->kafka, ElementsAre(Pair("bootstrap.servers", "k:1")));
}

TEST(ParseConfigTest, EmptyEnvironmentOverrideIsAnError) {
  EXPECT_THAT(ErrorOf(kMinimal, FakeEnv({{"OUTBOXD_POSTGRES_CONNINFO", ""}})),
              HasSubstr("OUTBOXD_POSTGRES_CONNINFO is set but empty; unset it"));
  EXPECT_THAT(ErrorOf(kMinimal, FakeEnv({{"OUTBOXD_KAFKA_BOOTSTRAP_SERVERS", ""}})),
              HasSubstr("OUTBOXD_KAFKA_BOOTSTRAP_SERVERS is set but empty; unset it"));
}

TEST(LoadConfigTest, ReadsFileAndNamesItInErrors) {
  const std::string path = ::testing::TempDir() + "/outboxd_config_test.toml";
  {
    std::ofstream out(path);
    out << kMinimal << "[relay]\nshutdown_timeout_ms = 5\n";
  }
  absl::StatusOr<Config> config = LoadConfig(path, FakeEnv());
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->relay.shutdown_timeout_ms, 5);
  {
    std::ofstream out(path);
    out << "[postgres]\nslott = \"x\"\n";
  }
  config = LoadConfig(path, FakeEnv());
  EXPECT_THAT(std::string(config.status().message()), HasSubstr(path + ":2: unknown key"));
  std::remove(path.c_str());
}

TEST(LoadConfigTest, MissingFileIsInvalidArgument) {
  absl::StatusOr<Config> config = LoadConfig("/nonexistent/outboxd.toml", FakeEnv());
  EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(config.status().message()),
              HasSubstr("/nonexistent/outboxd.toml: cannot open config file"));
}

// AWS IAM (src/cloud): the options that make outboxd produce tokens, and their errors.
constexpr std::string_view kMskIam = R"(
[postgres]
conninfo = "host=db.example sslmode=verify-full dbname=app user=outboxd"
tables = ["public.outbox"]

[kafka]
"bootstrap.servers" = "b-1.msk.example:9098"
"sasl.oauthbearer.method" = "aws_msk_iam"
aws_region = "eu-west-1"
)";

TEST(AwsIamConfigTest, MskIamBecomesOauthbearerOverSaslSsl) {
  auto config = Parse(kMskIam);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_TRUE(config->kafka_iam.aws_msk_iam);
  EXPECT_EQ(config->kafka_iam.aws_region, "eu-west-1");
  // librdkafka never sees the outboxd-only keys (it would refuse them).
  EXPECT_THAT(config->kafka, ElementsAre(Pair("bootstrap.servers", "b-1.msk.example:9098"),
                                         Pair("sasl.mechanism", "OAUTHBEARER"),
                                         Pair("security.protocol", "SASL_SSL")));
}

TEST(AwsIamConfigTest, MskIamRegionFromTheEnvironmentOrAnErrorNamingTheFix) {
  std::string text(kMskIam);
  text.erase(text.find("aws_region"));
  auto config = Parse(text, FakeEnv({{"AWS_DEFAULT_REGION", "ap-south-1"}}));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->kafka_iam.aws_region, "ap-south-1");
  EXPECT_THAT(ErrorOf(text),
              AllOf(HasSubstr("needs the cluster's AWS region"),
                    HasSubstr("aws_region = \"us-east-1\""), HasSubstr("AWS_REGION")));
}

TEST(AwsIamConfigTest, MskIamRefusesAnotherMechanismOrAPlainProtocol) {
  EXPECT_THAT(ErrorOf(std::string(kMskIam) + "\"sasl.mechanism\" = \"SCRAM-SHA-512\"\n"),
              HasSubstr("\"sasl.mechanism\" = \"SCRAM-SHA-512\" cannot carry MSK IAM tokens"));
  EXPECT_THAT(ErrorOf(std::string(kMskIam) + "\"security.protocol\" = \"SSL\"\n"),
              HasSubstr("set it to \"SASL_SSL\""));
  EXPECT_THAT(ErrorOf(WithMinimal("aws_region = \"us-east-1\"\n")),
              HasSubstr("aws_region applies only to sasl.oauthbearer.method"));
}

TEST(AwsIamConfigTest, RdsIamTakesItsRegionFromTheSectionOrTheEnvironment) {
  const std::string text = R"(
[postgres]
conninfo = "host=db.example sslmode=verify-full dbname=app user=outboxd"
tables = ["public.outbox"]
iam_auth = "aws_rds"
)";
  const std::string kafka = "[kafka]\n\"bootstrap.servers\" = \"127.0.0.1:9092\"\n";
  auto from_env = Parse(text + kafka, FakeEnv({{"AWS_REGION", "us-west-2"}}));
  ASSERT_TRUE(from_env.ok()) << from_env.status();
  EXPECT_EQ(from_env->postgres.iam_auth, IamAuth::kAwsRds);
  EXPECT_EQ(from_env->postgres.aws_region, "us-west-2");
  auto from_file = Parse(text + "aws_region = \"eu-central-1\"\n" + kafka,
                         FakeEnv({{"AWS_REGION", "us-west-2"}}));
  ASSERT_TRUE(from_file.ok()) << from_file.status();
  EXPECT_EQ(from_file->postgres.aws_region, "eu-central-1");
  EXPECT_THAT(ErrorOf(text + kafka),
              AllOf(HasSubstr("iam_auth"), HasSubstr("AWS region"), HasSubstr("AWS_REGION")));
  EXPECT_EQ(Parse(WithMinimal(""))->postgres.iam_auth, IamAuth::kNone);
}

}  // namespace
}  // namespace outboxd::config
