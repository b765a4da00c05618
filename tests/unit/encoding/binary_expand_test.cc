// value_converter = "bytes" (ByteArrayConverter; BinaryDataConverter and its delegate) and
// expand_json_payload through the Mapper: which rows pass bytes through, which are delegated,
// expanded or dead-lettered, and that a warm Mapper allocates nothing for them.

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/counting_new.h"
#include "support/mapper_test_util.h"

namespace outboxd::outbox {
namespace {

using ::testing::HasSubstr;
using testing::kBytea;
using testing::kJsonb;
using testing::kText;
using testing::kUuid;
using testing::kVarchar;

testing::Columns WithPayload(uint32_t oid) {
  return {{"id", kUuid},
          {"aggregatetype", kVarchar},
          {"aggregateid", kVarchar},
          {"type", kVarchar},
          {"payload", oid}};
}

class BinaryExpandTest : public testing::MapperFixture {
 protected:
  absl::Status MapRow(const pgoutput::Insert& row) { return mapper_->Map(row, source_, event_); }
  std::string Value() const { return event_.value ? std::string(*event_.value) : "<null>"; }
};

TEST_F(BinaryExpandTest, ByteArrayConverterPassesByteaAndRefusesText) {
  cfg_.value_converter = config::Converter::kBytes;
  Start(WithPayload(kBytea));
  ASSERT_TRUE(MapRow(Row("1", "Order", "o-1", "\\x00ff10e282ac")).ok());
  EXPECT_EQ(Value(), std::string("\x00\xff\x10\xe2\x82\xac", 6));
  EXPECT_EQ(event_.key, "o-1");
  ASSERT_TRUE(MapRow(Row("2", "Order", "o-1", "\\x")).ok());
  EXPECT_EQ(Value(), "");
  ASSERT_TRUE(MapRow(Row("3", "Order", "o-1", std::nullopt)).ok());
  EXPECT_EQ(event_.value, std::nullopt);
  // A jsonb payload (or NULL) has a string schema: ByteArrayConverter throws in Debezium.
  Start(WithPayload(kJsonb));
  EXPECT_THAT(ReasonOf(Row("4", "Order", "o-1", R"({"a": 1})")),
              HasSubstr("value_converter = bytes without a delegate writes only bytea"));
  EXPECT_THAT(ReasonOf(Row("5", "Order", "o-1", std::nullopt)), HasSubstr("only bytea"));
}

TEST_F(BinaryExpandTest, BinaryDataConverterDelegatesWhatIsNotBytes) {
  cfg_.value_converter = config::Converter::kBytes;
  cfg_.value_converter_delegate = config::Converter::kJson;
  Start(WithPayload(kBytea));
  ASSERT_TRUE(MapRow(Row("1", "Order", "o-1", "\\x7b7d")).ok());
  EXPECT_EQ(Value(), "{}");  // The row's bytes, not base64.
  ASSERT_TRUE(MapRow(Row("2", "Order", "o-1", std::nullopt)).ok());
  EXPECT_EQ(event_.value, std::nullopt);
  Start(WithPayload(kJsonb));
  ASSERT_TRUE(MapRow(Row("3", "Order", "o-1", R"({"a": 1})")).ok());
  EXPECT_EQ(Value(), R"("{\"a\": 1}")");  // As observed with Debezium 3.6.1 (DEBEZIUM.md).
  ASSERT_TRUE(MapRow(Row("4", "Order", "o-1", std::nullopt)).ok());
  EXPECT_EQ(Value(), "null");
  cfg_.value_converter_delegate = config::Converter::kJsonWithSchema;
  Start(WithPayload(kText));
  ASSERT_TRUE(MapRow(Row("5", "Order", "o-1", "hi")).ok());
  EXPECT_EQ(Value(), R"({"schema":{"type":"string","optional":true},"payload":"hi"})");
}

TEST_F(BinaryExpandTest, BytesWithoutDelegateRefusesTheEnvelope) {
  cfg_.value_converter = config::Converter::kBytes;
  cfg_.additional_placement = {{"type", "eventType", config::Placement::kEnvelope}};
  Start(WithPayload(kBytea));
  EXPECT_THAT(ReasonOf(Row("1", "Order", "o-1", "\\x00")), HasSubstr("envelope struct"));
}

TEST_F(BinaryExpandTest, ExpandedPayloadUnderJsonWithSchema) {
  cfg_.expand_json_payload = true;
  cfg_.value_converter = config::Converter::kJsonWithSchema;
  Start();
  ASSERT_TRUE(MapRow(Row("1", "Order", "o-1", R"({"n": 1, "price": 1.50})")).ok());
  EXPECT_EQ(Value(),
            R"({"schema":{"type":"struct","fields":[{"type":"int32","optional":true,"field":"n"},)"
            R"({"type":"double","optional":true,"field":"price"}],"optional":true,)"
            R"("name":"payload"},"payload":{"n":1,"price":1.5}})");
  // Not expanded: the string as without the option, under the column's schema.
  ASSERT_TRUE(MapRow(Row("2", "Order", "o-1", R"("just a string")")).ok());
  EXPECT_EQ(Value(), R"({"schema":{"type":"string","optional":true,"name":"io.debezium.data.Json",)"
                     R"("version":1},"payload":"\"just a string\""})");
  ASSERT_TRUE(MapRow(Row("3", "Order", "o-1", "[]")).ok());
  EXPECT_EQ(Value(), R"({"schema":null,"payload":"[]"})");
  ASSERT_TRUE(MapRow(Row("4", "Order", "o-1", std::nullopt)).ok());
  EXPECT_EQ(Value(), R"({"schema":{"type":"string","optional":true,"name":"io.debezium.data.Json",)"
                     R"("version":1},"payload":null})");
  EXPECT_THAT(ReasonOf(Row("5", "Order", "o-1", "[1, 2]")), HasSubstr("JSON array payload"));
}

TEST_F(BinaryExpandTest, ExpandedPayloadUnderJsonAndTheBytesDelegate) {
  cfg_.expand_json_payload = true;
  cfg_.value_converter = config::Converter::kJson;
  Start(WithPayload(kText));
  ASSERT_TRUE(MapRow(Row("1", "Order", "o-1", R"({"b": 1,  "a": "spaced", "n": null})")).ok());
  EXPECT_EQ(Value(), R"({"b":1,"a":"spaced"})");
  ASSERT_TRUE(MapRow(Row("2", "Order", "o-1", "[]")).ok());
  EXPECT_EQ(Value(), R"("[]")");
  cfg_.value_converter = config::Converter::kBytes;
  cfg_.value_converter_delegate = config::Converter::kJson;
  Start(WithPayload(kBytea));  // Bytes are never expanded (Debezium warns and keeps them).
  ASSERT_TRUE(MapRow(Row("3", "Order", "o-1", "\\x7b7d")).ok());
  EXPECT_EQ(Value(), "{}");
  Start(WithPayload(kJsonb));
  ASSERT_TRUE(MapRow(Row("4", "Order", "o-1", R"({"a": [1, 2]})")).ok());
  EXPECT_EQ(Value(), R"({"a":[1,2]})");
}

TEST_F(BinaryExpandTest, WarmMapperAllocatesNothing) {
  cfg_.expand_json_payload = true;
  cfg_.value_converter = config::Converter::kJsonWithSchema;
  Start();
  const pgoutput::Insert row =
      Row("1", "Order", "o-1", R"({"n": 1, "items": [{"id": 1, "tags": ["a"]}], "x": {"y": 2.5}})");
  ASSERT_TRUE(MapRow(row).ok());
  ASSERT_TRUE(MapRow(row).ok());
  const int64_t before = outboxd::testing::ThreadAllocations();
  ASSERT_TRUE(MapRow(row).ok());
  EXPECT_EQ(outboxd::testing::ThreadAllocations() - before, 0);

  cfg_.expand_json_payload = false;
  cfg_.value_converter = config::Converter::kBytes;
  Start(WithPayload(kBytea));
  const pgoutput::Insert bytes = Row("1", "Order", "o-1", "\\x00ff10e282ac");
  ASSERT_TRUE(MapRow(bytes).ok());
  ASSERT_TRUE(MapRow(bytes).ok());
  const int64_t bytes_before = outboxd::testing::ThreadAllocations();
  ASSERT_TRUE(MapRow(bytes).ok());
  EXPECT_EQ(outboxd::testing::ThreadAllocations() - bytes_before, 0);
}

}  // namespace
}  // namespace outboxd::outbox
