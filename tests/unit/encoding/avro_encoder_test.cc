// The raw format under key_converter / value_converter = "avro" through the Mapper, with a fake
// registry: Confluent framing, AvroData's schemas and subjects, null payloads and keys, the
// registry's errors, and no allocation once warm.

#include <map>
#include <string>

#include "encoding/avro/avro_expand.h"
#include "encoding/avro/schema_ids.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/counting_new.h"
#include "support/mapper_test_util.h"

namespace outboxd::outbox {

using encoding::AnythingAvroSchema;
using encoding::CreateEncoder;
using encoding::kAnythingAvroName;
using encoding::ProcessRunId;
using encoding::SchemaIds;
namespace {

using ::testing::HasSubstr;
using testing::kBytea;
using testing::kJsonb;
using testing::kUuid;
using testing::kVarchar;

class FakeIds final : public SchemaIds {
 public:
  absl::StatusOr<int32_t> IdFor(std::string_view topic, bool is_key, std::string_view name,
                                std::string_view schema_json) override {
    if (!next_error.ok()) return next_error;
    if (!record) return is_key ? 1 : 2;  // As a warm registry cache: no allocation.
    last_name = std::string(name);
    const std::string subject = std::string(topic) + (is_key ? "-key" : "-value");
    auto [it, added] = schemas.try_emplace(subject, std::string(schema_json));
    EXPECT_EQ(it->second, schema_json) << subject;
    return is_key ? 1 : 2;
  }
  std::map<std::string, std::string> schemas;  // subject -> schema
  std::string last_name;
  absl::Status next_error;
  bool record = true;
};

testing::Columns WithPayload(uint32_t oid) {
  return {{"id", kUuid},
          {"aggregatetype", kVarchar},
          {"aggregateid", kVarchar},
          {"type", kVarchar},
          {"payload", oid}};
}

class AvroEncoderTest : public testing::MapperFixture {
 protected:
  void StartAvro(const testing::Columns& columns) {
    mapper_.reset();
    encoder_ = CreateEncoder(cfg_, ProcessRunId(), &ids_);
    mapper_.emplace(cfg_, std::vector<config::TableName>{{"public", "outbox"}}, *encoder_);
    mapper_->OnRelation(testing::MakeRelation(testing::kOutboxId, "public", "outbox", columns));
  }
  absl::Status MapRow(const pgoutput::Insert& row) { return mapper_->Map(row, source_, event_); }
  FakeIds ids_;
};

// Confluent framing of id 2 around `body`.
std::string Framed(int id, std::string_view body) {
  return std::string("\0\0\0\0", 4) + static_cast<char>(id) + std::string(body);
}

TEST_F(AvroEncoderTest, JsonbPayloadIsAnAvroDataUnionUnderTopicValue) {
  cfg_.value_converter = config::Converter::kAvro;
  StartAvro(WithPayload(kJsonb));
  ASSERT_TRUE(MapRow(Row("1", "Order", "o-1", R"({"a": 1})")).ok());
  // Union branch 1 (zigzag 2), length 8 (zigzag 16), the text.
  EXPECT_EQ(event_.value, Framed(2, std::string("\x02\x10") + R"({"a": 1})"));
  EXPECT_EQ(event_.key, "o-1");  // key_converter stays string.
  EXPECT_EQ(
      ids_.schemas.at("outbox.event.Order-value"),
      R"(["null",{"type":"string","connect.version":1,"connect.name":"io.debezium.data.Json"}])");
  EXPECT_EQ(ids_.last_name, "union");
  // A NULL payload is a null value (Confluent's serializer writes null for null).
  ASSERT_TRUE(MapRow(Row("2", "Order", "o-1", std::nullopt)).ok());
  EXPECT_EQ(event_.value, std::nullopt);
}

TEST_F(AvroEncoderTest, ByteaPayloadAndAvroKey) {
  cfg_.value_converter = config::Converter::kAvro;
  cfg_.key_converter = config::Converter::kAvro;
  StartAvro(WithPayload(kBytea));
  ASSERT_TRUE(MapRow(Row("1", "Blob", "k", "\\x00ff")).ok());
  EXPECT_EQ(event_.value, Framed(2, std::string("\x02\x04\x00\xff", 4)));
  // The key column is NOT NULL in Debezium's documented table: "string", not a union.
  EXPECT_EQ(event_.key, Framed(1, "\x02k"));
  EXPECT_EQ(ids_.schemas.at("outbox.event.Blob-key"), R"("string")");
  EXPECT_EQ(ids_.schemas.at("outbox.event.Blob-value"), R"(["null","bytes"])");
}

TEST_F(AvroEncoderTest, EnvelopePlacementsAreARecord) {
  cfg_.value_converter = config::Converter::kAvro;
  cfg_.logical_name = "shop";
  cfg_.additional_placement = {{"type", "eventType", config::Placement::kEnvelope}};
  StartAvro(WithPayload(kJsonb));
  ASSERT_TRUE(MapRow(Row("1", "Order", "o-1", "{}", "Created")).ok());
  EXPECT_EQ(event_.value, Framed(2, std::string("\x02\x04{}\x0e") + "Created"));
  EXPECT_EQ(ids_.last_name, "shop.public.outbox.Order.Value");
  EXPECT_EQ(
      ids_.schemas.at("outbox.event.Order-value"),
      R"({"type":"record","name":"Value","namespace":"shop.public.outbox.Order","fields":[)"
      R"({"name":"payload","type":["null",{"type":"string","connect.version":1,)"
      R"("connect.name":"io.debezium.data.Json"}],"default":null},)"
      R"({"name":"eventType","type":"string"}],"connect.name":"shop.public.outbox.Order.Value"})");
}

TEST_F(AvroEncoderTest, RegistryErrorsReachTheCaller) {
  cfg_.value_converter = config::Converter::kAvro;
  StartAvro(WithPayload(kJsonb));
  ids_.next_error = absl::ResourceExhaustedError("schema registry unreachable");
  EXPECT_EQ(MapRow(Row("1", "Order", "o-1", "{}")).code(), absl::StatusCode::kResourceExhausted);
  ids_.next_error = absl::FailedPreconditionError("incompatible");
  EXPECT_EQ(MapRow(Row("1", "Order", "o-1", "{}")).code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(AvroEncoderTest, AValueThatDoesNotFitItsSchemaIsDeadLettered) {
  cfg_.value_converter = config::Converter::kAvro;
  cfg_.logical_name = "shop";
  cfg_.additional_placement = {{"type", "eventType", config::Placement::kEnvelope}};
  StartAvro(WithPayload(kJsonb));
  // "type" is NOT NULL in the relation's schema, so its field is not a union.
  EXPECT_THAT(ReasonOf(Row("1", "Order", "o-1", "{}", std::nullopt)),
              HasSubstr("column type: avro: NULL in a field whose schema is not optional"));
}

TEST_F(AvroEncoderTest, WarmRowsAllocateNothing) {
  cfg_.value_converter = config::Converter::kAvro;
  cfg_.key_converter = config::Converter::kAvro;
  StartAvro(WithPayload(kJsonb));
  const pgoutput::Insert row = Row("1", "Order", "o-1", R"({"n": 1, "s": "abc"})");
  ASSERT_TRUE(MapRow(row).ok());
  ids_.record = false;
  ASSERT_TRUE(MapRow(row).ok());
  const int64_t before = outboxd::testing::ThreadAllocations();
  ASSERT_TRUE(MapRow(row).ok());
  EXPECT_EQ(outboxd::testing::ThreadAllocations() - before, 0);
}

TEST_F(AvroEncoderTest, ExpandedPayloadIsTheInferredRecord) {
  cfg_.value_converter = config::Converter::kAvro;
  cfg_.expand_json_payload = true;
  StartAvro(WithPayload(kJsonb));
  ASSERT_TRUE(MapRow(Row("1", "Order", "o-1", R"({"a": 1})")).ok());
  // Union branch 1 (the record), field a: branch 1, zigzag(1).
  EXPECT_EQ(event_.value, Framed(2, "\x02\x02\x02"));
  EXPECT_EQ(ids_.schemas.at("outbox.event.Order-value"),
            R"(["null",{"type":"record","name":"payload","fields":[{"name":"a","type":)"
            R"(["null","int"],"default":null}],"connect.name":"payload"}])");
  EXPECT_EQ(ids_.last_name, "union");
  // A payload Debezium does not expand stays the jsonb string (its own subject here).
  ASSERT_TRUE(MapRow(Row("2", "Text", "o-1", R"("s")")).ok());
  EXPECT_EQ(event_.value, Framed(2, std::string("\x02\x06") + R"("s")"));
  // "[]" keeps its text with a null Connect schema: AvroData's Anything record.
  ASSERT_TRUE(MapRow(Row("3", "Empty", "o-1", "[]")).ok());
  EXPECT_EQ(ids_.schemas.at("outbox.event.Empty-value"), AnythingAvroSchema());
  EXPECT_EQ(ids_.last_name, kAnythingAvroName);
  EXPECT_EQ(event_.value, Framed(2, std::string("\0\0\0\0\0\0\x02\x04[]\0\0", 12)));
}

TEST_F(AvroEncoderTest, ExpandedPayloadsTheConverterCannotWriteAreDeadLettered) {
  cfg_.value_converter = config::Converter::kAvro;
  cfg_.expand_json_payload = true;
  StartAvro(WithPayload(kJsonb));
  EXPECT_THAT(ReasonOf(Row("1", "Order", "o-1", R"({"n": 12345678901234567890})")),
              HasSubstr("an integer beyond 64 bits"));
  EXPECT_THAT(ReasonOf(Row("2", "Order", "o-1", R"({"first-name": "x"})")),
              HasSubstr("the JSON key \"first-name\" is not an Avro field name"));
  EXPECT_THAT(ReasonOf(Row("3", "Order", "o-1", "[1]")), HasSubstr("a JSON array payload"));
  EXPECT_TRUE(ids_.schemas.empty());  // Nothing was registered for them.
}

TEST_F(AvroEncoderTest, TheAvroDelegateOfBytesWritesWhatIsNotBytea) {
  cfg_.value_converter = config::Converter::kBytes;
  cfg_.value_converter_delegate = config::Converter::kAvro;
  cfg_.expand_json_payload = true;
  StartAvro(WithPayload(kBytea));
  ASSERT_TRUE(MapRow(Row("1", "Blob", "k", "\\x00ff")).ok());
  EXPECT_EQ(event_.value, std::string("\x00\xff", 2));  // BinaryDataConverter: untouched.
  EXPECT_TRUE(ids_.schemas.empty());
  StartAvro(WithPayload(kJsonb));
  ASSERT_TRUE(MapRow(Row("2", "Order", "o-1", R"({"a": true})")).ok());
  EXPECT_EQ(event_.value, Framed(2, "\x02\x02\x01"));
  EXPECT_THAT(ids_.schemas.at("outbox.event.Order-value"),
              HasSubstr(R"("type":["null","boolean"])"));
}

TEST_F(AvroEncoderTest, WarmExpandedRowsAllocateNothing) {
  cfg_.value_converter = config::Converter::kAvro;
  cfg_.expand_json_payload = true;
  StartAvro(WithPayload(kJsonb));
  const pgoutput::Insert row =
      Row("1", "Order", "o-1", R"({"n": 1, "s": "abc", "a": {"b": [1.5]}, "m": [[{"k": 1}]]})");
  ASSERT_TRUE(MapRow(row).ok());
  ids_.record = false;
  ASSERT_TRUE(MapRow(row).ok());
  const int64_t before = outboxd::testing::ThreadAllocations();
  ASSERT_TRUE(MapRow(row).ok());
  EXPECT_EQ(outboxd::testing::ThreadAllocations() - before, 0);
}

}  // namespace
}  // namespace outboxd::outbox
