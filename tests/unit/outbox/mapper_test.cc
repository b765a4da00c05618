// The Outbox Event Router rules: topic, key, value, headers and tombstones.

#include "outbox/mapper.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/mapper_test_util.h"

namespace outboxd::outbox {
namespace {

using ::testing::ElementsAre;
using testing::kBytea;
using testing::kJson;
using testing::kOutboxId;
using testing::kText;
using testing::kUuid;
using testing::kVarchar;
using testing::MakeRelation;

constexpr std::string_view kUuidText = "7c4d1c36-3c4f-4d6e-9d43-3f1ad1f1e0a1";

class MapperTest : public testing::MapperFixture {};

TEST_F(MapperTest, DebeziumDefaults) {
  Mapper& mapper = Start();
  const pgoutput::Insert row = Row(std::string(kUuidText), "Order", "order-42", R"({"total": 10})");
  ASSERT_TRUE(mapper.Map(row, source_, event_).ok());
  EXPECT_EQ(event_.topic, "outbox.event.Order");  // Case kept.
  EXPECT_EQ(event_.key, "order-42");
  EXPECT_EQ(event_.value, R"({"total": 10})");
  // The type column is not emitted unless placed.
  EXPECT_THAT(event_.headers, ElementsAre(Header{"id", kUuidText}));
}

TEST_F(MapperTest, ViewsPointIntoTheWalMessage) {
  Mapper& mapper = Start();
  const pgoutput::Insert row = Row("1", "Order", "o-1", "{}");
  ASSERT_TRUE(mapper.Map(row, source_, event_).ok());
  const std::string_view raw = row.new_tuple.raw;
  EXPECT_GE(event_.value->data(), raw.data());
  EXPECT_LE(event_.value->data() + event_.value->size(), raw.data() + raw.size());
}

TEST_F(MapperTest, TextLikePayloadsPassThroughAsStored) {
  for (uint32_t oid : {kJson, testing::kJsonb, kText, kVarchar, uint32_t{142} /* xml */}) {
    Mapper& mapper = Start({{"id", kUuid},
                            {"aggregatetype", kVarchar},
                            {"aggregateid", kVarchar},
                            {"type", kVarchar},
                            {"payload", oid}});
    ASSERT_TRUE(mapper.Map(Row("1", "Order", "o-1", "{ \"a\" :1 }"), source_, event_).ok()) << oid;
    EXPECT_EQ(event_.value, "{ \"a\" :1 }") << oid;
  }
}

TEST_F(MapperTest, ByteaPayloadIsHexDecoded) {
  Mapper& mapper = Start({{"id", kUuid},
                          {"aggregatetype", kVarchar},
                          {"aggregateid", kVarchar},
                          {"type", kVarchar},
                          {"payload", kBytea}});
  ASSERT_TRUE(mapper.Map(Row("1", "Order", "o-1", "\\x0a0b00ff"), source_, event_).ok());
  EXPECT_EQ(event_.value, std::string_view("\x0a\x0b\x00\xff", 4));
  EXPECT_EQ(event_.value->data(), event_.owned_value.data());
}

TEST_F(MapperTest, NullPayloadIsTombstone) {
  Mapper& mapper = Start();
  ASSERT_TRUE(mapper.Map(Row("1", "Order", "o-1", std::nullopt), source_, event_).ok());
  EXPECT_EQ(event_.value, std::nullopt);
  EXPECT_EQ(event_.key, "o-1");
}

TEST_F(MapperTest, EmptyPayloadIsAnEmptyValueByDefault) {
  Mapper& mapper = Start();
  ASSERT_TRUE(mapper.Map(Row("1", "Order", "o-1", ""), source_, event_).ok());
  ASSERT_TRUE(event_.value.has_value());
  EXPECT_EQ(*event_.value, "");
  // Producers pass data() to Kafka; a null pointer would turn the empty value into null.
  EXPECT_NE(event_.value->data(), nullptr);
}

TEST_F(MapperTest, EmptyPayloadIsTombstoneWhenConfigured) {
  cfg_.tombstone_on_empty_payload = true;
  Mapper& mapper = Start();
  ASSERT_TRUE(mapper.Map(Row("1", "Order", "o-1", ""), source_, event_).ok());
  EXPECT_EQ(event_.value, std::nullopt);
  ASSERT_TRUE(mapper.Map(Row("1", "Order", "o-1", "{}"), source_, event_).ok());
  EXPECT_EQ(event_.value, "{}");
}

TEST_F(MapperTest, EmptyByteaPayloadIsTombstoneWhenConfigured) {
  cfg_.tombstone_on_empty_payload = true;
  Mapper& mapper = Start({{"id", kUuid},
                          {"aggregatetype", kVarchar},
                          {"aggregateid", kVarchar},
                          {"type", kVarchar},
                          {"payload", kBytea}});
  ASSERT_TRUE(mapper.Map(Row("1", "Order", "o-1", "\\x"), source_, event_).ok());
  EXPECT_EQ(event_.value, std::nullopt);
}

TEST_F(MapperTest, CustomColumnNamesAndTopicPattern) {
  cfg_.topic = "events-${routedByValue}-v1";
  cfg_.id_column = "event_id";
  cfg_.aggregate_type_column = "kind";
  cfg_.aggregate_id_column = "entity";
  cfg_.payload_column = "body";
  // A different column order too: the layout follows the Relation, not the defaults.
  Mapper& mapper =
      Start({{"body", kText}, {"entity", kText}, {"kind", kText}, {"event_id", kUuid}});
  ASSERT_TRUE(
      mapper.Map(inserts_.Make(kOutboxId, {"hello", "c-7", "Customer", "e-1"}), source_, event_)
          .ok());
  EXPECT_EQ(event_.topic, "events-Customer-v1");
  EXPECT_EQ(event_.key, "c-7");
  EXPECT_EQ(event_.value, "hello");
  EXPECT_THAT(event_.headers, ElementsAre(Header{"id", "e-1"}));
}

TEST_F(MapperTest, FixedTopicIgnoresTheRoutingValue) {
  cfg_.topic = "all-events";
  Mapper& mapper = Start();
  ASSERT_TRUE(mapper.Map(Row("1", "Order", "o-1", "{}"), source_, event_).ok());
  EXPECT_EQ(event_.topic, "all-events");
}

TEST_F(MapperTest, AdditionalPlacementBecomesHeadersInConfigOrder) {
  cfg_.additional_placement = {{"type", "eventType"}, {"tenant", "tenant"}, {"aggregateid", "agg"}};
  Mapper& mapper = Start({{"id", kUuid},
                          {"aggregatetype", kVarchar},
                          {"aggregateid", kVarchar},
                          {"type", kVarchar},
                          {"payload", testing::kJsonb},
                          {"tenant", kText}});
  ASSERT_TRUE(
      mapper
          .Map(inserts_.Make(kOutboxId, {"1", "Order", "o-1", "OrderCreated", "{}", std::nullopt}),
               source_, event_)
          .ok());
  EXPECT_THAT(event_.headers, ElementsAre(Header{"id", "1"}, Header{"eventType", "OrderCreated"},
                                          Header{"tenant", std::nullopt}, Header{"agg", "o-1"}));
}

TEST_F(MapperTest, ReusedEventCarriesNothingOver) {
  cfg_.additional_placement = {{"type", "type"}};
  Mapper& mapper = Start();
  ASSERT_TRUE(mapper.Map(Row("1", "Order", "o-1", "{\"first\":1}"), source_, event_).ok());
  ASSERT_TRUE(mapper.Map(Row("2", "Invoice", "i-9", std::nullopt, "Paid"), source_, event_).ok());
  EXPECT_EQ(event_.topic, "outbox.event.Invoice");
  EXPECT_EQ(event_.key, "i-9");
  EXPECT_EQ(event_.value, std::nullopt);
  EXPECT_THAT(event_.headers, ElementsAre(Header{"id", "2"}, Header{"type", "Paid"}));
}

TEST_F(MapperTest, UnneededUnchangedToastColumnIsIgnored) {
  Mapper& mapper = Start();
  const pgoutput::Insert row =
      inserts_.Make(kOutboxId, std::vector<outboxd::testing::TestColumn>{
                                   {"1"}, {"Order"}, {"o-1"}, {std::nullopt, 'u'}, {"{}"}});
  ASSERT_TRUE(mapper.Map(row, source_, event_).ok());
  EXPECT_EQ(event_.value, "{}");
}

TEST_F(MapperTest, KnowsWhichRelationsAreOutboxTables) {
  Create({{"public", "outbox"}, {"billing", "events"}});
  mapper_->OnRelation(MakeRelation(RelationId{1}, "public", "outbox", testing::DebeziumColumns()));
  mapper_->OnRelation(MakeRelation(RelationId{2}, "billing", "events", testing::DebeziumColumns()));
  mapper_->OnRelation(MakeRelation(RelationId{3}, "billing", "outbox", testing::DebeziumColumns()));
  EXPECT_TRUE(mapper_->IsOutboxTable(RelationId{1}));
  EXPECT_TRUE(mapper_->IsOutboxTable(RelationId{2}));
  EXPECT_FALSE(mapper_->IsOutboxTable(RelationId{3}));  // Same name, other schema.
  EXPECT_FALSE(mapper_->IsOutboxTable(RelationId{4}));  // Never seen.
  EXPECT_EQ(mapper_->TableName(RelationId{2}), "billing.events");
  EXPECT_EQ(mapper_->TableName(RelationId{4}), "relation 4");
}

}  // namespace
}  // namespace outboxd::outbox
