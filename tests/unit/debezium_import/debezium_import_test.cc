// The Debezium connector JSON import: what each option becomes in outboxd's TOML, and that
// options which would change the records are errors naming the option and the fix.

#include "debezium_import/debezium_import.h"

#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "debezium_import/debezium_internal.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd::debezium_import {
namespace {

using config::Config;
using config::Converter;
using config::kEnvBootstrapServers;
using config::KeyPolicy;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

// A connector as a team posts it, with the options under test merged into "config".
std::string Connector(const std::string& extra_options = "", bool wrapped = true) {
  std::string config = R"("connector.class": "io.debezium.connector.postgresql.PostgresConnector",
    "database.hostname": "db.internal", "database.port": "5433", "database.user": "dbz",
    "database.password": "s3cr'et", "database.dbname": "shop", "topic.prefix": "shop",
    "plugin.name": "pgoutput", "table.include.list": "public.outbox",
    "transforms": "outbox",
    "transforms.outbox.type": "io.debezium.transforms.outbox.EventRouter",
    "key.converter": "org.apache.kafka.connect.storage.StringConverter",
    "value.converter": "org.apache.kafka.connect.storage.StringConverter")";
  if (!extra_options.empty()) config += ", " + extra_options;
  return wrapped ? R"({"name": "shop-outbox", "config": {)" + config + "}}" : "{" + config + "}";
}

// `json` without option `name` (written as "name": "value" followed by a comma or the end).
std::string Drop(std::string json, const std::string& name) {
  const size_t start = json.find("\"" + name + "\": \"");
  if (start == std::string::npos) return "<no option " + name + ">";
  size_t end = json.find('"', start + name.size() + 5) + 1;
  end = json.find_first_not_of(", \n", end);
  return json.erase(start, end - start);
}

std::string TomlOf(const std::string& json) {
  absl::StatusOr<DebeziumImport> imported = ImportDebezium(json, "connector.json");
  if (!imported.ok()) return "<error: " + std::string(imported.status().message()) + ">";
  return imported->toml;
}

std::string ErrorOf(const std::string& json) {
  absl::StatusOr<DebeziumImport> imported = ImportDebezium(json, "connector.json");
  if (imported.ok()) return "<imported without error>";
  EXPECT_EQ(imported.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(imported.status().message());
}

std::string WarningsOf(const std::string& json) {
  absl::StatusOr<DebeziumImport> imported = ImportDebezium(json, "connector.json");
  if (!imported.ok()) return "<error: " + std::string(imported.status().message()) + ">";
  std::string all;
  for (const std::string& w : imported->warnings) all += w + "\n";
  return all;
}

TEST(DebeziumImportTest, ConnectionSlotPublicationAndTables) {
  absl::StatusOr<DebeziumImport> imported = ImportDebezium(Connector(), "c.json");
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->connector_name, "shop-outbox");
  EXPECT_EQ(imported->password, "s3cr'et");
  EXPECT_THAT(
      imported->toml,
      AllOf(HasSubstr(R"(conninfo = "host=db.internal port=5433 user=dbz dbname=shop )"
                      R"(password='${OUTBOXD_POSTGRES_PASSWORD}'")"),
            HasSubstr(R"(slot = "debezium")"), HasSubstr(R"(publication = "dbz_publication")"),
            HasSubstr(R"(tables = ["public.outbox"])"), Not(HasSubstr("s3cr"))));
}

TEST(DebeziumImportTest, BareConfigAndNumbersAreAccepted) {
  const std::string json =
      Connector(R"("slot.name": "orders_slot", "publication.name": "orders_pub",
                   "status.update.interval.ms": 2000, "table.include.list": "public\\.outbox, app.events")",
                false);
  absl::StatusOr<DebeziumImport> imported = ImportDebezium(json, "c.json");
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->connector_name, "");
  EXPECT_THAT(imported->toml, AllOf(HasSubstr(R"(slot = "orders_slot")"),
                                    HasSubstr(R"(publication = "orders_pub")"),
                                    HasSubstr("status_interval_ms = 2000"),
                                    HasSubstr(R"(tables = ["public.outbox", "app.events"])")));
}

TEST(DebeziumImportTest, AnOptionGivenTwiceTakesTheLastValue) {
  EXPECT_THAT(TomlOf(Connector(R"("slot.name": "first", "slot.name": "second")")),
              AllOf(HasSubstr(R"(slot = "second")"), Not(HasSubstr("first"))));
}

TEST(DebeziumImportTest, MissingPortIsPostgresDefault) {
  const std::string json = Drop(Connector(), "database.port");
  EXPECT_THAT(TomlOf(json), HasSubstr("host=db.internal port=5432 user=dbz"));
}

TEST(DebeziumImportTest, RouterOptionsMapToOutboxKeys) {
  const std::string toml = TomlOf(Connector(R"(
      "transforms.outbox.table.field.event.id": "event_id",
      "transforms.outbox.table.field.event.key": "agg_id",
      "transforms.outbox.table.field.event.payload": "body",
      "transforms.outbox.table.field.event.timestamp": "created_at",
      "transforms.outbox.route.by.field": "agg_type",
      "transforms.outbox.route.topic.regex": "(?<routedByValue>.*)Event",
      "transforms.outbox.route.topic.replacement": "${routedByValue}.events",
      "transforms.outbox.route.tombstone.on.empty.payload": "TRUE",
      "transforms.outbox.table.expand.json.payload": "true",
      "transforms.outbox.table.fields.additional.placement": "type:header:eventType, tenant:partition",
      "transforms.outbox.table.op.invalid.behavior": "fatal")"));
  EXPECT_THAT(
      toml,
      AllOf(HasSubstr(R"(id_column = "event_id")"), HasSubstr(R"(aggregate_id_column = "agg_id")"),
            HasSubstr(R"(payload_column = "body")"),
            HasSubstr(R"(timestamp_column = "created_at")"),
            HasSubstr(R"(aggregate_type_column = "agg_type")"),
            HasSubstr(R"(topic_regex = "(?<routedByValue>.*)Event")"),
            HasSubstr(R"(topic = "${routedByValue}.events")"),
            HasSubstr("tombstone_on_empty_payload = true"), HasSubstr("expand_json_payload = true"),
            HasSubstr(R"(additional_placement = ["type:header:eventType", )"
                      R"("tenant:partition"])"),
            HasSubstr(R"(op_invalid_behavior = "fatal")")));
}

TEST(DebeziumImportTest, ConnectorHeadersAndKeyPoliciesFollowDebezium) {
  const std::string toml = TomlOf(Connector());
  EXPECT_THAT(toml,
              AllOf(HasSubstr("extended_headers = true"), HasSubstr(R"(logical_name = "shop")"),
                    HasSubstr(R"(empty_keys = "publish")"), HasSubstr(R"(null_keys = "publish")")));
  EXPECT_THAT(TomlOf(Connector(R"("extended.headers.enabled": "false")")),
              HasSubstr("extended_headers = false"));
}

TEST(DebeziumImportTest, ConvertersAndSchemasEnable) {
  std::string json = Connector(R"("key.converter.schemas.enable": "false",
      "value.converter.schemas.enable": "false")");
  for (const char* side : {"\"key.converter\"", "\"value.converter\""}) {
    const size_t at = json.find(side);
    json.replace(json.find("org.apache.kafka.connect.storage.StringConverter", at), 48,
                 "org.apache.kafka.connect.json.JsonConverter");
  }
  EXPECT_THAT(TomlOf(json), AllOf(HasSubstr(R"(key_converter = "json")"),
                                  HasSubstr(R"(value_converter = "json")")));
  json.replace(json.find(R"("value.converter.schemas.enable": "false")"), 41,
               R"("value.converter.schemas.enable": "true")");
  EXPECT_THAT(TomlOf(json), HasSubstr(R"(value_converter = "json_with_schema")"));
}

TEST(DebeziumImportTest, ConfluentsAvroConverterAndItsRegistry) {
  auto avro = [](const std::string& extra) {
    std::string json = Connector(extra);
    const size_t at = json.find("\"value.converter\"");
    json.replace(json.find("org.apache.kafka.connect.storage.StringConverter", at), 48,
                 "io.confluent.connect.avro.AvroConverter");
    return json;
  };
  const std::string registry =
      R"("value.converter.schema.registry.url": "https://registry:8081",
         "value.converter.basic.auth.credentials.source": "USER_INFO",
         "value.converter.basic.auth.user.info": "dbz:reg-s3cret",
         "value.converter.auto.register.schemas": "false",
         "value.converter.value.subject.name.strategy":
           "io.confluent.kafka.serializers.subject.RecordNameStrategy")";
  absl::StatusOr<DebeziumImport> imported = ImportDebezium(avro(registry), "connector.json");
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_THAT(
      imported->toml,
      AllOf(HasSubstr(R"(value_converter = "avro")"), HasSubstr("[schema_registry]"),
            HasSubstr(R"(url = "https://registry:8081")"), HasSubstr(R"(username = "dbz")"),
            HasSubstr(R"(password = "${OUTBOXD_SCHEMA_REGISTRY_PASSWORD}")"),
            HasSubstr("auto_register_schemas = false"), HasSubstr("use_latest_version = false"),
            HasSubstr(R"(subject_name_strategy = "record")"), Not(HasSubstr("reg-s3cret"))));
  EXPECT_EQ(imported->registry_password, "reg-s3cret");
  // Without avro there is no [schema_registry] section.
  EXPECT_THAT(TomlOf(Connector()), Not(HasSubstr("[schema_registry]")));
  EXPECT_THAT(ErrorOf(avro("")), HasSubstr("value.converter.schema.registry.url"));
  EXPECT_THAT(ErrorOf(avro(R"("value.converter.schema.registry.url": "http://r",
                              "value.converter.connect.meta.data": "false")")),
              HasSubstr("value.converter.connect.meta.data"));
  // Both sides avro: one registry, so their options must agree.
  std::string both =
      avro(registry + R"(, "key.converter.schema.registry.url": "https://registry:8081",
         "key.converter.basic.auth.credentials.source": "USER_INFO",
         "key.converter.basic.auth.user.info": "dbz:reg-s3cret",
         "key.converter.auto.register.schemas": "false",
         "key.converter.key.subject.name.strategy":
           "io.confluent.kafka.serializers.subject.RecordNameStrategy")");
  both.replace(
      both.find("org.apache.kafka.connect.storage.StringConverter", both.find("\"key.converter\"")),
      48, "io.confluent.connect.avro.AvroConverter");
  EXPECT_THAT(TomlOf(both), AllOf(HasSubstr(R"(key_converter = "avro")"),
                                  HasSubstr(R"(subject_name_strategy = "record")")));
  std::string differ = both;
  differ.replace(differ.find("https://registry:8081", differ.find("key.converter.schema")), 21,
                 "https://other:8081");
  EXPECT_THAT(ErrorOf(differ), HasSubstr("key.converter.schema.registry.url"));
  std::string apicurio = Connector();
  apicurio.replace(apicurio.find("org.apache.kafka.connect.storage.StringConverter",
                                 apicurio.find("\"value.converter\"")),
                   48, "io.apicurio.registry.utils.converter.AvroConverter");
  EXPECT_THAT(ErrorOf(apicurio), HasSubstr("apis/ccompat/v7"));
}

TEST(DebeziumImportTest, BinaryConvertersAndTheirDelegates) {
  auto with_value = [](const std::string& type, const std::string& extra = "") {
    std::string json = Connector(extra);
    const size_t at = json.find("\"value.converter\"");
    json.replace(json.find("org.apache.kafka.connect.storage.StringConverter", at), 48, type);
    return json;
  };
  const std::string byte_array =
      TomlOf(with_value("org.apache.kafka.connect.converters.ByteArrayConverter"));
  EXPECT_THAT(byte_array, AllOf(HasSubstr(R"(value_converter = "bytes")"),
                                Not(HasSubstr("value_converter_delegate"))));
  EXPECT_THAT(
      TomlOf(with_value("io.debezium.converters.BinaryDataConverter")),
      AllOf(HasSubstr(R"(value_converter = "bytes")"), Not(HasSubstr("value_converter_delegate"))));
  EXPECT_THAT(
      TomlOf(with_value(
          "io.debezium.converters.BinaryDataConverter",
          R"("value.converter.delegate.converter.type": "org.apache.kafka.connect.json.JsonConverter",
             "value.converter.delegate.converter.type.schemas.enable": "false")")),
      AllOf(HasSubstr(R"(value_converter = "bytes")"),
            HasSubstr(R"(value_converter_delegate = "json")")));
  // The delegate's JsonConverter has schemas on by default, as a JsonConverter of its own.
  EXPECT_THAT(
      TomlOf(with_value(
          "io.debezium.converters.BinaryDataConverter",
          R"("value.converter.delegate.converter.type": "org.apache.kafka.connect.json.JsonConverter")")),
      HasSubstr(R"(value_converter_delegate = "json_with_schema")"));
  // ByteArrayConverter has no delegate: the option is unknown to it (a warning).
  EXPECT_THAT(
      WarningsOf(with_value(
          "org.apache.kafka.connect.converters.ByteArrayConverter",
          R"("value.converter.delegate.converter.type": "org.apache.kafka.connect.json.JsonConverter")")),
      HasSubstr("value.converter.delegate.converter.type"));
  // A key is text: ByteArrayConverter fails on it; BinaryDataConverter hands it to the delegate.
  std::string key = Connector(
      R"("key.converter.delegate.converter.type": "org.apache.kafka.connect.storage.StringConverter")");
  const size_t at = key.find("\"key.converter\"");
  key.replace(key.find("org.apache.kafka.connect.storage.StringConverter", at), 48,
              "io.debezium.converters.BinaryDataConverter");
  EXPECT_THAT(TomlOf(key), HasSubstr(R"(key_converter = "string")"));
  std::string byte_key = Connector();
  byte_key.replace(byte_key.find("org.apache.kafka.connect.storage.StringConverter",
                                 byte_key.find("\"key.converter\"")),
                   48, "org.apache.kafka.connect.converters.ByteArrayConverter");
  EXPECT_THAT(ErrorOf(byte_key),
              AllOf(HasSubstr("key.converter"), HasSubstr("fails on every text key")));
}

TEST(DebeziumImportTest, BinaryDataConverterDelegatingToAvro) {
  // BinaryDataConverter configures its delegate with the options under its type's name.
  std::string json = Connector(
      R"("value.converter.delegate.converter.type": "io.confluent.connect.avro.AvroConverter",
         "value.converter.delegate.converter.type.schema.registry.url": "http://registry:8081",
         "value.converter.delegate.converter.type.value.subject.name.strategy":
           "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy",
         "transforms.outbox.table.expand.json.payload": "true")");
  json.replace(json.find("org.apache.kafka.connect.storage.StringConverter",
                         json.find("\"value.converter\"")),
               48, "io.debezium.converters.BinaryDataConverter");
  absl::StatusOr<DebeziumImport> imported = ImportDebezium(json, "connector.json");
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_THAT(imported->toml,
              AllOf(HasSubstr(R"(value_converter = "bytes")"),
                    HasSubstr(R"(value_converter_delegate = "avro")"),
                    HasSubstr("expand_json_payload = true"), HasSubstr("[schema_registry]"),
                    HasSubstr(R"(url = "http://registry:8081")"),
                    HasSubstr(R"(subject_name_strategy = "topic_record")")));
  // The whole import path gives a config outboxd runs with.
  const std::string path = ::testing::TempDir() + "/dbz_import_avro_delegate.json";
  std::ofstream(path) << json;
  std::vector<std::string> warnings;
  absl::StatusOr<Config> config = LoadDebeziumConfig(
      path, std::nullopt,
      [](std::string_view name) -> std::optional<std::string> {
        if (name == kEnvBootstrapServers) return "kafka1:9092";
        return std::nullopt;
      },
      warnings);
  std::remove(path.c_str());
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->outbox.value_converter, Converter::kBytes);
  EXPECT_EQ(config->outbox.value_converter_delegate, Converter::kAvro);
  EXPECT_TRUE(config->outbox.expand_json_payload);
  EXPECT_EQ(config->schema_registry.url, "http://registry:8081");
  // The registry URL is looked for where the delegate reads it, not under value.converter.
  std::string missing = json;
  missing.replace(missing.find("value.converter.delegate.converter.type.schema.registry.url"), 59,
                  "value.converter.schema.registry.url");
  EXPECT_THAT(
      ErrorOf(missing),
      HasSubstr(
          R"(option "value.converter.delegate.converter.type.schema.registry.url" is missing)"));
  // Its AvroData options are checked there too.
  std::string meta = json;
  meta.replace(meta.find(R"("transforms.outbox.table.expand.json.payload")"), 0,
               R"("value.converter.delegate.converter.type.connect.meta.data": "false", )");
  EXPECT_THAT(ErrorOf(meta),
              HasSubstr("value.converter.delegate.converter.type.connect.meta.data"));
}

TEST(DebeziumImportTest, JsonConverterSchemasDefaultToEnabled) {
  std::string json = Connector();
  const size_t at = json.find("\"value.converter\"");
  json.replace(json.find("org.apache.kafka.connect.storage.StringConverter", at), 48,
               "org.apache.kafka.connect.json.JsonConverter");
  EXPECT_THAT(TomlOf(json), AllOf(HasSubstr(R"(key_converter = "string")"),
                                  HasSubstr(R"(value_converter = "json_with_schema")")));
}

TEST(DebeziumImportTest, OutputChangingOptionsAreErrors) {
  EXPECT_THAT(ErrorOf(Connector(R"("transforms": "outbox,route",
      "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter")")),
              AllOf(HasSubstr("transforms.route.type"), HasSubstr("RegexRouter"),
                    HasSubstr("remove that transform")));
  EXPECT_THAT(ErrorOf(Connector(R"("transforms.outbox.table.field.event.schema.version": "3")")),
              AllOf(HasSubstr("transforms.outbox.table.field.event.schema.version"),
                    HasSubstr("remove it"), HasSubstr("docs/migrating-from-debezium.md")));
  EXPECT_THAT(ErrorOf(Connector(
                  R"("transforms.outbox.table.json.payload.null.behavior": "optional_bytes")")),
              HasSubstr("table.json.payload.null.behavior"));
  EXPECT_THAT(
      TomlOf(Connector(R"("transforms.outbox.table.json.payload.null.behavior": "ignore")")),
      HasSubstr("[outbox]"));
  EXPECT_THAT(ErrorOf(Connector(R"("transforms.outbox.predicate": "isOutbox")")),
              HasSubstr("transforms.outbox.predicate"));
  EXPECT_THAT(ErrorOf(Connector(R"("binary.handling.mode": "base64")")),
              HasSubstr("binary.handling.mode"));
  EXPECT_THAT(ErrorOf(Connector(R"("column.exclude.list": "public.outbox.type")")),
              HasSubstr("column.exclude.list"));
  EXPECT_THAT(ErrorOf(Connector(R"("header.converter": "com.acme.Headers")")),
              HasSubstr("header.converter"));
}

TEST(DebeziumImportTest, ConverterErrorsNameTheFix) {
  std::string other = Connector();
  const size_t at = other.find("\"value.converter\"");
  other.replace(other.find("org.apache.kafka.connect.storage.StringConverter", at), 48,
                "io.confluent.connect.protobuf.ProtobufConverter");
  EXPECT_THAT(ErrorOf(other), AllOf(HasSubstr("value.converter"), HasSubstr("AvroConverter"),
                                    HasSubstr("JsonConverter")));
  EXPECT_THAT(ErrorOf(Drop(Connector(), "key.converter")),
              AllOf(HasSubstr("\"key.converter\" is not set"), HasSubstr("as the worker sets it")));
}

TEST(DebeziumImportTest, ConnectorMustBePostgresWithPgoutputAndEventRouter) {
  EXPECT_THAT(ErrorOf(Drop(Connector(), "plugin.name")),
              AllOf(HasSubstr("plugin.name"), HasSubstr("decoderbufs"),
                    HasSubstr("Debezium's default"), HasSubstr("pgoutput")));
  std::string mysql = Connector();
  mysql.replace(mysql.find("postgresql.PostgresConnector"), 28, "mysql.MySqlConnector");
  EXPECT_THAT(ErrorOf(mysql), HasSubstr("connector.class"));
  EXPECT_THAT(ErrorOf(Drop(Connector(), "transforms")),
              AllOf(HasSubstr("\"transforms\""), HasSubstr("EventRouter")));
}

TEST(DebeziumImportTest, TablesMustBeNamedExactly) {
  EXPECT_THAT(ErrorOf(Connector(R"("table.include.list": "public.outbox.*")")),
              AllOf(HasSubstr("table.include.list"), HasSubstr("public.outbox.*"),
                    HasSubstr("list the outbox tables by name")));
  EXPECT_THAT(ErrorOf(Connector(R"("table.include.list": "outbox")")), HasSubstr("no schema"));
  EXPECT_THAT(ErrorOf(Drop(Connector(), "table.include.list")),
              AllOf(HasSubstr("table.include.list"), HasSubstr("every table")));
}

TEST(DebeziumImportTest, TableLessOutboxFromLogicalMessages) {
  std::string json = Drop(Connector(R"("message.prefix.include.list": "outbox, billing",
      "transforms.decode.type":
        "io.debezium.connector.postgresql.transforms.DecodeLogicalDecodingMessageContent",
      "transforms.decode.fields.null.include": "true")"),
                          "table.include.list");
  json.replace(json.find(R"("transforms": "outbox")"), 22, R"("transforms": "decode,outbox")");
  absl::StatusOr<DebeziumImport> imported = ImportDebezium(json, "c.json");
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_THAT(imported->toml, AllOf(HasSubstr(R"(message_prefixes = ["outbox", "billing"])"),
                                    Not(HasSubstr("tables ="))));
  std::string warnings;
  for (const std::string& w : imported->warnings) warnings += w + "\n";
  EXPECT_THAT(warnings, Not(HasSubstr("transforms.decode")));
  EXPECT_THAT(
      ErrorOf(Connector(R"("message.prefix.include.list": "out.*")")),
      AllOf(HasSubstr("message.prefix.include.list"), HasSubstr("matches prefixes exactly")));
}

TEST(DebeziumImportTest, EveryIgnoredOptionIsNamedInAWarning) {
  const std::string warnings = WarningsOf(Connector(R"("tasks.max": "1",
      "snapshot.mode": "initial", "slot.drop.on.stop": "true",
      "transforms.outbox.tracing.operation.name": "outbox",
      "publication.autocreate.mode": "disabled")"));
  EXPECT_THAT(warnings, AllOf(HasSubstr("tasks.max is not used by outboxd"),
                              HasSubstr("snapshot.mode=initial"), HasSubstr("slot.drop.on.stop"),
                              HasSubstr("transforms.outbox.tracing.operation.name"),
                              HasSubstr("publication.autocreate.mode=disabled")));
  EXPECT_THAT(TomlOf(Connector(R"("publication.autocreate.mode": "disabled")")),
              AllOf(HasSubstr("create_publication = false"), Not(HasSubstr("create_slot"))));
  EXPECT_THAT(WarningsOf(Connector(R"("snapshot.mode": "no_data")")),
              Not(HasSubstr("snapshot.mode")));
}

TEST(DebeziumImportTest, ConfigProviderReferences) {
  EXPECT_THAT(ErrorOf(Connector(R"("database.user": "${file:/etc/kc/db.properties:user}")")),
              AllOf(HasSubstr("database.user"), HasSubstr("config provider")));
  std::string json = Connector();
  json.replace(json.find(R"("s3cr'et")"), 9, R"("${file:/etc/kc/db.properties:password}")");
  absl::StatusOr<DebeziumImport> imported = ImportDebezium(json, "c.json");
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->password, "");
  EXPECT_THAT(WarningsOf(json), HasSubstr("set OUTBOXD_POSTGRES_PASSWORD"));
}

TEST(DebeziumImportTest, MalformedJson) {
  EXPECT_THAT(ErrorOf("{\"name\": "),
              AllOf(HasSubstr("connector.json"), HasSubstr("not valid JSON")));
  EXPECT_THAT(ErrorOf("[1]"), HasSubstr("must be an object"));
  EXPECT_THAT(ErrorOf(Connector(R"("tasks.max": [1])")),
              AllOf(HasSubstr("\"tasks.max\" must be a string"), HasSubstr("[1]")));
}

TEST(DebeziumImportTest, TomlStringEscapes) {
  EXPECT_EQ(internal::TomlString("a\"b\\c\n"), R"("a\"b\\c\u000A")");
  EXPECT_EQ(internal::TomlString("ключ😀"), R"("\u043A\u043B\u044E\u0447\U0001F600")");
  EXPECT_EQ(internal::TomlString("x${Y}"), R"("x$${Y}")");
  EXPECT_EQ(internal::TomlString("x${Y}", false), R"("x${Y}")");
}

// A file given with --config beside the connector may hold client settings only.
TEST(DebeziumImportTest, CompanionFileMayNotRedefineTheConnector) {
  const std::string dir = ::testing::TempDir();
  const std::string json_path = dir + "/dbz_import_connector.json";
  const std::string toml_path = dir + "/dbz_import_extra.toml";
  std::ofstream(json_path) << Connector();
  std::ofstream(toml_path) << "[kafka]\n\"bootstrap.servers\" = \"k:9092\"\n\n [postgres]\n";
  std::vector<std::string> warnings;
  absl::StatusOr<Config> config = LoadDebeziumConfig(
      json_path, toml_path, [](std::string_view) { return std::nullopt; }, warnings);
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.status().message(),
              AllOf(HasSubstr("dbz_import_extra.toml:4"), HasSubstr("[postgres] comes from")));
  config = LoadDebeziumConfig(
      dir + "/missing.json", std::nullopt, [](std::string_view) { return std::nullopt; }, warnings);
  EXPECT_THAT(config.status().message(), HasSubstr("cannot open the Debezium connector config"));
  std::remove(json_path.c_str());
  std::remove(toml_path.c_str());
}

// The whole path `run --debezium-config` takes: connector JSON -> TOML -> ParseConfig, with the
// Kafka address from the environment and the password never in the TOML.
TEST(DebeziumImportTest, LoadsIntoTheConfigOutboxdRunsWith) {
  const std::string path = ::testing::TempDir() + "/dbz_import_load.json";
  std::ofstream(path) << Connector(
      R"("value.converter": "org.apache.kafka.connect.json.JsonConverter",
      "value.converter.schemas.enable": "false", "slot.name": "orders_slot",
      "transforms.outbox.route.topic.replacement": "${routedByValue}.events")");
  std::vector<std::string> warnings;
  absl::StatusOr<Config> config = LoadDebeziumConfig(
      path, std::nullopt,
      [](std::string_view name) -> std::optional<std::string> {
        if (name == kEnvBootstrapServers) return "kafka1:9092";
        return std::nullopt;
      },
      warnings);
  std::remove(path.c_str());
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->postgres.conninfo,
            R"(host=db.internal port=5433 user=dbz dbname=shop password='s3cr\'et')");
  EXPECT_EQ(config->postgres.slot, "orders_slot");
  EXPECT_EQ(config->postgres.publication, "dbz_publication");
  ASSERT_EQ(config->postgres.tables.size(), 1u);
  EXPECT_EQ(config->postgres.tables[0].ToString(), "public.outbox");
  EXPECT_THAT(config->kafka, ::testing::Contains(std::pair<std::string, std::string>(
                                 "bootstrap.servers", "kafka1:9092")));
  EXPECT_EQ(config->outbox.topic, "${routedByValue}.events");
  EXPECT_EQ(config->outbox.key_converter, Converter::kString);
  EXPECT_EQ(config->outbox.value_converter, Converter::kJson);
  EXPECT_TRUE(config->outbox.extended_headers);
  EXPECT_EQ(config->outbox.logical_name, "shop");
  EXPECT_EQ(config->outbox.empty_keys, KeyPolicy::kPublish);
  EXPECT_EQ(config->outbox.null_keys, KeyPolicy::kPublish);
}

}  // namespace
}  // namespace outboxd::debezium_import
