// Mapper behaviour under the Debezium-parity options: routing regex, empty/NULL key policies,
// envelope and partition placements, timestamp column, extended headers, converters, UPDATEs.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/mapper_test_util.h"

namespace outboxd::outbox {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::kBytea;
using testing::kJsonb;
using testing::kUuid;
using testing::kVarchar;

constexpr uint32_t kInt4 = 23;
constexpr uint32_t kTimestamp = 1114;

class MapperOptionsTest : public testing::MapperFixture {
 protected:
  absl::Status MapRow(const pgoutput::Insert& row) { return mapper_->Map(row, source_, event_); }
};

TEST_F(MapperOptionsTest, TopicRegexAndReplacement) {
  cfg_.topic_regex = "(?<domain>[^.]+)\\.(?<entity>.+)";
  cfg_.topic = "events.${entity}.$1";
  Start();
  ASSERT_TRUE(MapRow(Row("1", "sales.Order", "o-1", "{}")).ok());
  EXPECT_EQ(event_.topic, "events.Order.sales");
  // No full match: the topic is the routing value itself, as RegexRouter leaves it.
  ASSERT_TRUE(MapRow(Row("2", "Order", "o-1", "{}")).ok());
  EXPECT_EQ(event_.topic, "Order");
}

TEST_F(MapperOptionsTest, EmptyKeysPublishedLikeDebezium) {
  cfg_.empty_keys = config::KeyPolicy::kPublish;
  Start();
  ASSERT_TRUE(MapRow(Row("1", "", "e-1", "{}")).ok());
  EXPECT_EQ(event_.topic, "outbox.event.");
  EXPECT_TRUE(event_.empty_key);
  ASSERT_TRUE(MapRow(Row("2", "Order", "", "{}")).ok());
  ASSERT_TRUE(event_.key.has_value());  // Empty, not null: it is hashed to a fixed partition.
  EXPECT_EQ(*event_.key, "");
  EXPECT_TRUE(event_.empty_key);
  ASSERT_TRUE(MapRow(Row("3", "Order", "o-1", "{}")).ok());
  EXPECT_FALSE(event_.empty_key);
}

TEST_F(MapperOptionsTest, NullKeysPublishedLikeDebezium) {
  cfg_.null_keys = config::KeyPolicy::kPublish;
  Start();
  ASSERT_TRUE(MapRow(Row("1", "Order", std::nullopt, "{}")).ok());
  EXPECT_EQ(event_.key, std::nullopt);
  ASSERT_TRUE(MapRow(Row(std::nullopt, "Order", "o-1", "{}")).ok());
  EXPECT_THAT(event_.headers, ElementsAre(Header{"id", std::nullopt}));
  // A NULL routing value has no topic (Debezium's task fails on it): dead-lettered.
  EXPECT_EQ(ReasonOf(Row("3", std::nullopt, "o-1", "{}")), "column aggregatetype is NULL");
}

TEST_F(MapperOptionsTest, ExtendedHeadersComeFirstInDebeziumsOrder) {
  cfg_.extended_headers = true;
  cfg_.logical_name = "app";
  Create({{"public", "outbox"}}, "run-1");
  mapper_->OnRelation(
      testing::MakeRelation(testing::kOutboxId, "public", "outbox", testing::DebeziumColumns()));
  ASSERT_TRUE(MapRow(Row("1", "Order", "o-1", "{}")).ok());
  EXPECT_THAT(event_.headers,
              ElementsAre(Header{"__debezium.context.connectorLogicalName", "app"},
                          Header{"__debezium.context.taskId", "0"},
                          Header{"__debezium.context.connectorName", "postgresql"},
                          Header{"__debezium.context.runId", "run-1"}, Header{"id", "1"}));
}

TEST_F(MapperOptionsTest, PositionHeadersNameSlotCommitLsnAndOrdinal) {
  cfg_.position_headers = true;
  Start();
  source_ = {.commit_lsn = Lsn(0x1'0000ABCD),
             .lsn = Lsn(0x1'0000AB00),
             .xid = Xid{5},
             .slot = "outboxd",
             .ordinal = 41};
  ASSERT_TRUE(MapRow(Row("1", "Order", "o-1", "{}")).ok());
  EXPECT_THAT(event_.headers,
              ElementsAre(Header{"id", "1"}, Header{"outboxd.slot", "outboxd"},
                          Header{"outboxd.commit_lsn", "1/ABCD"}, Header{"outboxd.ordinal", "41"}));
  // The largest values fit the event's buffer.
  source_ = {.commit_lsn = Lsn(~uint64_t{0}),
             .lsn = Lsn(~uint64_t{0}),
             .xid = Xid{5},
             .slot = "s",
             .ordinal = ~uint64_t{0}};
  ASSERT_TRUE(MapRow(Row("2", "Order", "o-1", "{}")).ok());
  EXPECT_THAT(event_.headers, ElementsAre(Header{"id", "2"}, Header{"outboxd.slot", "s"},
                                          Header{"outboxd.commit_lsn", "FFFFFFFF/FFFFFFFF"},
                                          Header{"outboxd.ordinal", "18446744073709551615"}));
}

TEST_F(MapperOptionsTest, EnvelopeUnderEachConverter) {
  cfg_.additional_placement = {{"type", "eventType", config::Placement::kEnvelope}};
  cfg_.logical_name = "app";
  Start();
  ASSERT_TRUE(MapRow(Row("1", "Order", "o-1", R"({"a": 1})")).ok());
  EXPECT_EQ(event_.value, R"(Struct{payload={"a": 1},eventType=OrderCreated})");
  EXPECT_THAT(event_.headers, ElementsAre(Header{"id", "1"}));

  cfg_.key_converter = cfg_.value_converter = config::Converter::kJson;
  Start();
  ASSERT_TRUE(MapRow(Row("1", "Order", "o-1", R"({"a": 1})")).ok());
  EXPECT_EQ(event_.key, R"("o-1")");
  EXPECT_EQ(event_.value, R"({"payload":"{\"a\": 1}","eventType":"OrderCreated"})");

  cfg_.key_converter = cfg_.value_converter = config::Converter::kJsonWithSchema;
  Start();
  ASSERT_TRUE(MapRow(Row("1", "Order", "o-1", std::nullopt)).ok());
  EXPECT_EQ(event_.value,
            R"({"schema":{"type":"struct","fields":[{"type":"string","optional":true,)"
            R"("name":"io.debezium.data.Json","version":1,"field":"payload"},)"
            R"({"type":"string","optional":false,"field":"eventType"}],"optional":false,)"
            R"("name":"app.public.outbox.Order.Value"},"payload":{"payload":null,)"
            R"("eventType":"OrderCreated"}})");
}

TEST_F(MapperOptionsTest, PartitionPlacementAndTimestampColumn) {
  cfg_.additional_placement = {{"shard", "shard", config::Placement::kPartition}};
  cfg_.timestamp_column = "created_at";
  Start({{"id", kUuid},
         {"aggregatetype", kVarchar},
         {"aggregateid", kVarchar},
         {"payload", kJsonb},
         {"shard", kInt4},
         {"created_at", kTimestamp}});
  ASSERT_TRUE(MapRow(inserts_.Make(testing::kOutboxId,
                                   {"1", "Order", "o-1", "{}", "4", "1970-01-01 00:00:01.5"}))
                  .ok());
  EXPECT_EQ(event_.partition, 4);
  EXPECT_EQ(event_.timestamp_ms, 1500);
  ASSERT_TRUE(MapRow(inserts_.Make(testing::kOutboxId,
                                   {"2", "Order", "o-1", "{}", std::nullopt, std::nullopt}))
                  .ok());
  EXPECT_EQ(event_.partition, -1);
  EXPECT_EQ(event_.timestamp_ms, 0);
  EXPECT_THAT(
      ReasonOf(inserts_.Make(testing::kOutboxId, {"3", "Order", "o-1", "{}", "-2", std::nullopt})),
      HasSubstr("column shard holds \"-2\", which is no partition number"));
}

TEST_F(MapperOptionsTest, TombstoneOnBlankTextLikeDebeziumsTrim) {
  cfg_.tombstone_on_empty_payload = true;
  Start({{"id", kUuid},
         {"aggregatetype", kVarchar},
         {"aggregateid", kVarchar},
         {"payload", testing::kText}});
  ASSERT_TRUE(MapRow(inserts_.Make(testing::kOutboxId, {"1", "Order", "o-1", " \t\n"})).ok());
  EXPECT_EQ(event_.value, std::nullopt);
  cfg_.value_converter = config::Converter::kJsonWithSchema;
  Start({{"id", kUuid},
         {"aggregatetype", kVarchar},
         {"aggregateid", kVarchar},
         {"payload", testing::kText}});
  ASSERT_TRUE(MapRow(inserts_.Make(testing::kOutboxId, {"1", "Order", "o-1", ""})).ok());
  EXPECT_EQ(event_.value, std::nullopt);  // No schema wrapper around a tombstone.
}

TEST_F(MapperOptionsTest, UnsupportedTypeUnderJsonConverterFailsTheRow) {
  cfg_.value_converter = config::Converter::kJson;
  Start({{"id", kUuid}, {"aggregatetype", kVarchar}, {"aggregateid", kVarchar}, {"payload", 1700}});
  EXPECT_THAT(ReasonOf(Row("1", "Order", "o-1", "1.5")),
              HasSubstr("column payload of public.outbox has a type the JSON converters cannot"));
}

TEST_F(MapperOptionsTest, UpdatesFollowOpInvalidBehavior) {
  Start();
  EXPECT_TRUE(mapper_->OnUpdate(testing::kOutboxId).ok());
  cfg_.op_invalid_behavior = config::InvalidOpBehavior::kFatal;
  Start();
  absl::Status fatal = mapper_->OnUpdate(testing::kOutboxId);
  EXPECT_EQ(fatal.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(fatal.message(), HasSubstr("an UPDATE of outbox table public.outbox arrived"));
  EXPECT_TRUE(mapper_->OnUpdate(RelationId{999}).ok());  // Not an outbox table.
  (void)kBytea;
}

}  // namespace
}  // namespace outboxd::outbox
