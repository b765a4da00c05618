// [schema_registry] and the avro converters: defaults, choices, and the errors that name the fix.

#include "config/config.h"
#include "config_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd::config {
namespace {

using ::outboxd::config::testing::ErrorOf;
using ::outboxd::config::testing::Parse;
using ::outboxd::config::testing::WithMinimal;
using ::testing::HasSubstr;

// kMinimal's [outbox] section is not there; these add one.
std::string WithAvro(const std::string& registry, const std::string& outbox_extra = "") {
  return WithMinimal("[outbox]\nvalue_converter = \"avro\"\n" + outbox_extra + registry);
}

TEST(SchemaRegistrySectionTest, DefaultsAreConfluentsSerializerDefaults) {
  auto config = Parse(WithAvro("[schema_registry]\nurl = \"http://registry:8081\"\n"));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->outbox.value_converter, Converter::kAvro);
  EXPECT_EQ(config->schema_registry.url, "http://registry:8081");
  EXPECT_TRUE(config->schema_registry.auto_register_schemas);
  EXPECT_FALSE(config->schema_registry.use_latest_version);
  EXPECT_EQ(config->schema_registry.subject_name_strategy, SubjectNameStrategy::kTopic);
  EXPECT_EQ(config->schema_registry.timeout_ms, 5000);
}

TEST(SchemaRegistrySectionTest, EveryKey) {
  auto config = Parse(WithAvro(
      "[schema_registry]\nurl = \"https://r:8443/apis/ccompat/v7\"\nusername = \"u\"\n"
      "password = \"p\"\nca_file = \"/ca.pem\"\nauto_register_schemas = false\n"
      "use_latest_version = true\nsubject_name_strategy = \"topic_record\"\ntimeout_ms = 250\n",
      "key_converter = \"avro\"\n"));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->outbox.key_converter, Converter::kAvro);
  EXPECT_EQ(config->schema_registry.username, "u");
  EXPECT_EQ(config->schema_registry.password, "p");
  EXPECT_EQ(config->schema_registry.ca_file, "/ca.pem");
  EXPECT_FALSE(config->schema_registry.auto_register_schemas);
  EXPECT_TRUE(config->schema_registry.use_latest_version);
  EXPECT_EQ(config->schema_registry.subject_name_strategy, SubjectNameStrategy::kTopicRecord);
  EXPECT_EQ(config->schema_registry.timeout_ms, 250);
}

TEST(SchemaRegistrySectionTest, ExpandJsonPayloadIsWrittenUnderAvro) {
  auto config =
      Parse(WithAvro("[schema_registry]\nurl = \"http://r\"\n", "expand_json_payload = true\n"));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_TRUE(config->outbox.expand_json_payload);
}

TEST(SchemaRegistrySectionTest, ErrorsNameTheFix) {
  EXPECT_THAT(ErrorOf(WithAvro("")), HasSubstr("[schema_registry] url is not set"));
  EXPECT_THAT(ErrorOf(WithAvro("[schema_registry]\nurl = \"registry:8081\"\n")),
              HasSubstr("is not an http:// or https:// URL"));
  EXPECT_THAT(ErrorOf(WithAvro("[schema_registry]\nurl = \"http://r\"\nusername = \"u\"\n")),
              HasSubstr("set both username and password"));
  EXPECT_THAT(
      ErrorOf(WithAvro("[schema_registry]\nurl = \"http://r\"\n", "format = \"envelope-json\"\n")),
      HasSubstr("writes only format = \"raw\""));
  // The delegate of "bytes" needs the registry as value_converter = "avro" does.
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\nvalue_converter = \"bytes\"\n"
                                  "value_converter_delegate = \"avro\"\n")),
              HasSubstr("[schema_registry] url is not set"));
  EXPECT_THAT(ErrorOf(WithAvro("[schema_registry]\nurl = \"http://r\"\nsubject = \"x\"\n")),
              HasSubstr("subject"));
}

}  // namespace
}  // namespace outboxd::config
