// [outbox] options that mirror the Event Router and Kafka Connect settings: converters, routing
// regex, placements, key policies, extended headers.

#include "config/config.h"
#include "config_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd::config {
namespace {

using ::outboxd::config::testing::ErrorOf;
using ::outboxd::config::testing::ParseOutbox;
using ::outboxd::config::testing::WithMinimal;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(OutboxOptionsTest, DefaultsAreTheNativeOnes) {
  const OutboxConfig cfg = ParseOutbox("");
  EXPECT_EQ(cfg.key_converter, Converter::kString);
  EXPECT_EQ(cfg.value_converter, Converter::kString);
  EXPECT_EQ(cfg.topic_regex, "(?<routedByValue>.*)");
  EXPECT_EQ(cfg.timestamp_column, "");
  EXPECT_FALSE(cfg.expand_json_payload);
  EXPECT_EQ(cfg.op_invalid_behavior, InvalidOpBehavior::kWarn);
  EXPECT_FALSE(cfg.extended_headers);
  EXPECT_EQ(cfg.connector_name, "postgresql");
  EXPECT_EQ(cfg.empty_keys, KeyPolicy::kDeadLetter);
  EXPECT_EQ(cfg.null_keys, KeyPolicy::kDeadLetter);
}

TEST(OutboxOptionsTest, ReadsEveryOption) {
  const OutboxConfig cfg = ParseOutbox(R"toml(
key_converter = "json"
value_converter = "json_with_schema"
topic_regex = "(?<routedByValue>.*)"
topic = "events.${routedByValue}"
timestamp_column = "created_at"
op_invalid_behavior = "fatal"
extended_headers = true
logical_name = "app"
connector_name = "postgresql"
empty_keys = "publish"
null_keys = "publish"
additional_placement = ["type:header:eventType", "tenant:envelope", "shard:partition"]
)toml");
  EXPECT_EQ(cfg.key_converter, Converter::kJson);
  EXPECT_EQ(cfg.value_converter, Converter::kJsonWithSchema);
  EXPECT_EQ(cfg.topic, "events.${routedByValue}");
  EXPECT_EQ(cfg.timestamp_column, "created_at");
  EXPECT_EQ(cfg.op_invalid_behavior, InvalidOpBehavior::kFatal);
  EXPECT_TRUE(cfg.extended_headers);
  EXPECT_EQ(cfg.logical_name, "app");
  EXPECT_EQ(cfg.empty_keys, KeyPolicy::kPublish);
  EXPECT_EQ(cfg.null_keys, KeyPolicy::kPublish);
  EXPECT_THAT(cfg.additional_placement,
              ElementsAre(AdditionalField{"type", "eventType", Placement::kHeader},
                          AdditionalField{"tenant", "tenant", Placement::kEnvelope},
                          AdditionalField{"shard", "shard", Placement::kPartition}));
}

TEST(OutboxOptionsTest, WrongChoiceListsTheChoices) {
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\nkey_converter = \"protobuf\"\n")),
              HasSubstr(R"([outbox] key_converter is "protobuf", which is not a choice; write one )"
                        R"(of "string", "json", "json_with_schema", "bytes", "avro")"));
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\nop_invalid_behavior = \"skip\"\n")),
              HasSubstr(R"(write one of "warn", "error", "fatal")"));
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\nempty_keys = \"drop\"\n")),
              HasSubstr(R"(write one of "dead_letter", "publish")"));
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\nnull_keys = 1\n")),
              HasSubstr("[outbox] null_keys must be a string, got integer"));
}

// What an avro converter needs besides [outbox].
const std::string kRegistry = "[schema_registry]\nurl = \"http://registry:8081\"\n";

TEST(OutboxOptionsTest, ExpandJsonPayloadNeedsAJsonOrAvroValueConverterAndNoEnvelope) {
  EXPECT_FALSE(ParseOutbox("expand_json_payload = false\n").expand_json_payload);
  EXPECT_TRUE(
      ParseOutbox("expand_json_payload = true\nvalue_converter = \"json\"\n").expand_json_payload);
  EXPECT_TRUE(ParseOutbox("expand_json_payload = true\nvalue_converter = \"bytes\"\n"
                          "value_converter_delegate = \"json_with_schema\"\n")
                  .expand_json_payload);
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\nexpand_json_payload = true\n")),
              AllOf(HasSubstr("[outbox] expand_json_payload is true, but the value converter is "
                              "neither JSON nor avro"),
                    HasSubstr("write value_converter = \"json\", \"json_with_schema\" or "
                              "\"avro\"")));
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\nexpand_json_payload = true\nvalue_converter = "
                                  "\"bytes\"\n")),
              HasSubstr("the value converter is neither JSON nor avro"));
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\nexpand_json_payload = true\nvalue_converter = "
                                  "\"json\"\nadditional_placement = [\"type:envelope\"]\n")),
              HasSubstr("with the envelope placement of type"));
  // Under avro too (issue 23), directly or as the delegate of "bytes"; the envelope stays refused.
  EXPECT_TRUE(ParseOutbox("expand_json_payload = true\nvalue_converter = \"avro\"\n" + kRegistry)
                  .expand_json_payload);
  EXPECT_TRUE(ParseOutbox("expand_json_payload = true\nvalue_converter = \"bytes\"\n"
                          "value_converter_delegate = \"avro\"\n" +
                          kRegistry)
                  .expand_json_payload);
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\nexpand_json_payload = true\nvalue_converter = "
                                  "\"avro\"\nadditional_placement = [\"type:envelope\"]\n")),
              HasSubstr("with the envelope placement of type"));
}

TEST(OutboxOptionsTest, BytesValueConverterAndItsDelegate) {
  const OutboxConfig plain = ParseOutbox("value_converter = \"bytes\"\n");
  EXPECT_EQ(plain.value_converter, Converter::kBytes);
  EXPECT_EQ(plain.value_converter_delegate, Converter::kBytes);  // none: ByteArrayConverter
  EXPECT_EQ(NonBytesValueConverter(plain), Converter::kBytes);
  const OutboxConfig delegated =
      ParseOutbox("value_converter = \"bytes\"\nvalue_converter_delegate = \"json\"\n");
  EXPECT_EQ(delegated.value_converter_delegate, Converter::kJson);
  EXPECT_EQ(NonBytesValueConverter(delegated), Converter::kJson);
  EXPECT_EQ(NonBytesValueConverter(ParseOutbox("value_converter = \"json_with_schema\"\n")),
            Converter::kJsonWithSchema);
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\nkey_converter = \"bytes\"\n")),
              AllOf(HasSubstr("[outbox] key_converter is \"bytes\""),
                    HasSubstr("write key_converter = \"string\"")));
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\nvalue_converter_delegate = \"json\"\n")),
              HasSubstr("value_converter is not \"bytes\""));
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\nvalue_converter = \"bytes\"\n"
                                  "value_converter_delegate = \"bytes\"\n")),
              HasSubstr(R"(write one of "none", "string", "json", "json_with_schema", "avro")"));
  // BinaryDataConverter delegating to AvroConverter: the registry is needed, format raw only.
  const OutboxConfig avro =
      ParseOutbox("value_converter = \"bytes\"\nvalue_converter_delegate = \"avro\"\n" + kRegistry);
  EXPECT_EQ(NonBytesValueConverter(avro), Converter::kAvro);
  EXPECT_TRUE(UsesAvro(avro));
  EXPECT_FALSE(UsesAvro(delegated));
  EXPECT_THAT(
      ErrorOf(WithMinimal("[outbox]\nvalue_converter = \"bytes\"\n"
                          "value_converter_delegate = \"avro\"\nformat = \"cloudevents\"\n")),
      AllOf(HasSubstr("value_converter_delegate is \"avro\", which writes only format = "
                      "\"raw\""),
            HasSubstr("write format = \"raw\"")));
}

TEST(OutboxOptionsTest, ExtendedHeadersNeedTheLogicalName) {
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\nextended_headers = true\n")),
              HasSubstr("[outbox] extended_headers is true but logical_name"));
}

TEST(OutboxOptionsTest, RegexErrorsNameTheProblem) {
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\ntopic_regex = \"(?<=a)b\"\n")),
              HasSubstr("[outbox] topic_regex does not compile"));
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\ntopic_regex = \"(?<t>.*)\"\ntopic = \"x.${u}\"\n")),
              HasSubstr("refers to ${u}, which is no named group of the regex"));
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\ntopic_regex = \"(.*)\"\ntopic = \"x.$2\"\n")),
              HasSubstr("refers to group 2, which the regex lacks"));
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\ntopic = \"x$\"\n")),
              HasSubstr("has a $ that is no group reference"));
}

TEST(OutboxOptionsTest, FixedTopicCharactersAreChecked) {
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\ntopic = \"out/box.$1\"\ntopic_regex = \"(.*)\"\n")),
              HasSubstr("character '/' is not allowed"));
}

}  // namespace
}  // namespace outboxd::config
