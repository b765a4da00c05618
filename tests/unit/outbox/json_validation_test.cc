// [outbox] validate_json: text-typed payloads that are not JSON become mapping errors (so the
// row is dead-lettered); json/jsonb/bytea payloads and NULLs are never checked.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "outbox/json_validator.h"
#include "outbox/mapper.h"
#include "support/mapper_test_util.h"

namespace outboxd::outbox {
namespace {

using ::testing::HasSubstr;
using testing::kBytea;
using testing::kJson;
using testing::kJsonb;
using testing::kText;
using testing::kUuid;
using testing::kVarchar;
using ::testing::StartsWith;

testing::Columns WithPayloadType(uint32_t oid) {
  return {{"id", kUuid},
          {"aggregatetype", kVarchar},
          {"aggregateid", kVarchar},
          {"type", kVarchar},
          {"payload", oid}};
}

TEST(JsonValidatorTest, AcceptsDocumentsOfEveryShape) {
  JsonValidator validator;
  for (const char* text :
       {"{}", "[]", R"({"a": [1, 2.5e3, true, null, "x\u00e9"]})", "42", "\"s\"", "null",
        " \n {\"nested\": {\"deep\": [[[]]]}} \t", "{\"utf8\": \"h\xc3\xa9llo\"}"}) {
    EXPECT_EQ(validator.Check(text), std::nullopt) << text;
  }
}

TEST(JsonValidatorTest, RejectsWithAReason) {
  JsonValidator validator;
  for (const char* text : {"", "{", "{\"a\": }", "{'a': 1}", "[1, 2,]", "not json", "{} {}",
                           "{\"a\": 1} trailing", "\"\xff\xfe\"", "{\"a\": NaN}"}) {
    const std::optional<std::string_view> reason = validator.Check(text);
    ASSERT_TRUE(reason.has_value()) << "accepted: " << text;
    EXPECT_FALSE(reason->empty()) << text;
  }
}

TEST(JsonValidatorTest, ReusesBuffersAcrossSizes) {
  JsonValidator validator;
  std::string big = "[";
  for (int i = 0; i < 50000; ++i) big += "1,";
  big += "1]";
  EXPECT_EQ(validator.Check(big), std::nullopt);
  EXPECT_EQ(validator.Check("{}"), std::nullopt);  // Shorter after longer: no stale bytes read.
  EXPECT_TRUE(validator.Check("{").has_value());
  EXPECT_EQ(validator.Check(big), std::nullopt);
}

class JsonValidationMapperTest : public testing::MapperFixture {};

TEST_F(JsonValidationMapperTest, OffByDefaultTextPassesThroughUnchecked) {
  Start(WithPayloadType(kText));
  ASSERT_TRUE(mapper_->Map(Row("1", "Order", "o-1", "not json"), source_, event_).ok());
  EXPECT_EQ(event_.value, "not json");
}

TEST_F(JsonValidationMapperTest, InvalidTextOrVarcharPayloadIsAMappingError) {
  cfg_.validate_json = true;
  for (uint32_t oid : {kText, kVarchar}) {
    Start(WithPayloadType(oid));
    const std::string reason = ReasonOf(Row("1", "Order", "o-1", "{\"total\": 10"));
    EXPECT_THAT(reason, StartsWith("column payload is not valid JSON (")) << oid;
    EXPECT_THAT(reason, HasSubstr("validate_json is on")) << oid;
  }
}

TEST_F(JsonValidationMapperTest, ValidTextPayloadIsPublishedAsStored) {
  cfg_.validate_json = true;
  Start(WithPayloadType(kText));
  ASSERT_TRUE(mapper_->Map(Row("1", "Order", "o-1", "{ \"a\" :1 }"), source_, event_).ok());
  EXPECT_EQ(event_.value, "{ \"a\" :1 }");
}

TEST_F(JsonValidationMapperTest, ReasonNamesTheConfiguredPayloadColumn) {
  cfg_.validate_json = true;
  cfg_.payload_column = "body";
  Start({{"id", kUuid},
         {"aggregatetype", kVarchar},
         {"aggregateid", kVarchar},
         {"type", kVarchar},
         {"body", kText}});
  EXPECT_THAT(ReasonOf(Row("1", "Order", "o-1", "<xml/>")),
              StartsWith("column body is not valid JSON"));
}

TEST_F(JsonValidationMapperTest, JsonJsonbAndByteaAreNotChecked) {
  cfg_.validate_json = true;
  // Postgres guarantees json/jsonb; bytea is raw bytes by design. The mapper trusts the type.
  for (uint32_t oid : {kJson, kJsonb}) {
    Start(WithPayloadType(oid));
    ASSERT_TRUE(mapper_->Map(Row("1", "Order", "o-1", "{oops"), source_, event_).ok()) << oid;
  }
  Start(WithPayloadType(kBytea));
  ASSERT_TRUE(mapper_->Map(Row("1", "Order", "o-1", "\\x00ff"), source_, event_).ok());
  EXPECT_EQ(event_.value, std::string_view("\x00\xff", 2));
}

TEST_F(JsonValidationMapperTest, NullPayloadAndEmptyTombstoneAreNotChecked) {
  cfg_.validate_json = true;
  cfg_.tombstone_on_empty_payload = true;
  Start(WithPayloadType(kText));
  ASSERT_TRUE(mapper_->Map(Row("1", "Order", "o-1", std::nullopt), source_, event_).ok());
  EXPECT_EQ(event_.value, std::nullopt);
  ASSERT_TRUE(mapper_->Map(Row("2", "Order", "o-1", ""), source_, event_).ok());
  EXPECT_EQ(event_.value, std::nullopt);
}

TEST_F(JsonValidationMapperTest, EmptyTextIsInvalidWithoutTombstones) {
  cfg_.validate_json = true;
  Start(WithPayloadType(kText));
  EXPECT_THAT(ReasonOf(Row("1", "Order", "o-1", "")), StartsWith("column payload is not valid"));
}

TEST_F(JsonValidationMapperTest, NewRelationMessageSwitchesTheCheck) {
  // ALTER TABLE ... TYPE jsonb re-sends the Relation: the new type decides.
  cfg_.validate_json = true;
  Start(WithPayloadType(kText));
  EXPECT_FALSE(mapper_->Map(Row("1", "Order", "o-1", "{"), source_, event_).ok());
  mapper_->OnRelation(
      testing::MakeRelation(testing::kOutboxId, "public", "outbox", WithPayloadType(kJsonb)));
  EXPECT_TRUE(mapper_->Map(Row("2", "Order", "o-1", "{\"a\": 1}"), source_, event_).ok());
}

TEST_F(JsonValidationMapperTest, InvalidJsonRowDeadLettersWithPayloadAsStored) {
  cfg_.validate_json = true;
  Start(WithPayloadType(kText));
  const pgoutput::Insert row = Row("7", "Order", "o-1", "{bad");
  const std::string reason = ReasonOf(row);
  ASSERT_TRUE(mapper_
                  ->MapDeadLetter(row,
                                  EventSource{.commit_lsn = Lsn(0),
                                              .lsn = Lsn(0x16B374D848),
                                              .xid = Xid{731},
                                              .commit_time_us = 0},
                                  reason, event_)
                  .ok());
  EXPECT_EQ(event_.topic, "outbox.dlq");
  EXPECT_EQ(event_.value, "{bad");
  EXPECT_EQ(event_.key, "o-1");
}

TEST_F(JsonValidationMapperTest, EmptyAggregateIdIsAMappingError) {
  Start();
  EXPECT_EQ(ReasonOf(Row("1", "Order", "", "{}")),
            "column aggregateid is empty, so the record has no key; empty_keys = \"publish\" "
            "publishes it as Debezium does");
}

}  // namespace
}  // namespace outboxd::outbox
