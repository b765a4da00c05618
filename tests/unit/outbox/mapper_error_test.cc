// Rows that cannot be mapped: each reason is what lands in the dead-letter header, so it must
// name the column or topic at fault. Protocol inconsistencies are DataLoss instead.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "outbox/mapper.h"
#include "support/mapper_test_util.h"

namespace outboxd::outbox {
namespace {

using outboxd::testing::TestColumn;
using testing::kBytea;
using testing::kOutboxId;
using testing::kUuid;
using testing::kVarchar;
using testing::MakeRelation;

class MapperErrorTest : public testing::MapperFixture {};

TEST_F(MapperErrorTest, InsertBeforeRelationIsDataLoss) {
  Create();
  absl::Status status = mapper_->Map(Row("1", "Order", "o-1", "{}"), source_, event_);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(status.message(), "Insert for relation 16384 arrived before its Relation message");
}

TEST_F(MapperErrorTest, ColumnCountDisagreeingWithRelationIsDataLoss) {
  Mapper& mapper = Start();
  absl::Status status =
      mapper.Map(inserts_.Make(kOutboxId, {"1", "Order", "o-1", "T"}), source_, event_);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(status.message(),
            "Insert into public.outbox has 4 columns but its Relation message has 5");
}

TEST_F(MapperErrorTest, TableThatIsNotAnOutboxTable) {
  Start();
  mapper_->OnRelation(MakeRelation(RelationId{7}, "public", "orders", {{"id", kUuid}}));
  EXPECT_EQ(ReasonOf(inserts_.Make(RelationId{7}, {"1"})),
            "public.orders is not a configured outbox table");
}

TEST_F(MapperErrorTest, MissingConfiguredColumn) {
  Start({{"id", kUuid}, {"aggregatetype", kVarchar}, {"payload", kVarchar}});
  EXPECT_EQ(ReasonOf(inserts_.Make(kOutboxId, {"1", "Order", "{}"})),
            "column aggregateid not found in public.outbox");
}

TEST_F(MapperErrorTest, SeveralMissingColumnsAreListedOnce) {
  cfg_.additional_placement = {{"aggregateid", "agg"}, {"tenant", "tenant"}};
  Start({{"id", kUuid}, {"aggregatetype", kVarchar}, {"payload", kVarchar}});
  EXPECT_EQ(ReasonOf(inserts_.Make(kOutboxId, {"1", "Order", "{}"})),
            "columns aggregateid, tenant not found in public.outbox");
}

TEST_F(MapperErrorTest, NullOrEmptyAggregateType) {
  Start();
  EXPECT_EQ(ReasonOf(Row("1", std::nullopt, "o-1", "{}")), "column aggregatetype is NULL");
  EXPECT_EQ(ReasonOf(Row("1", "", "o-1", "{}")),
            "column aggregatetype is empty, so the record has no topic; empty_keys = \"publish\" "
            "publishes it as Debezium does");
}

TEST_F(MapperErrorTest, NullAggregateIdAndNullIdNameTheConfiguredColumn) {
  cfg_.id_column = "event_id";
  Start({{"event_id", kUuid},
         {"aggregatetype", kVarchar},
         {"aggregateid", kVarchar},
         {"type", kVarchar},
         {"payload", kVarchar}});
  EXPECT_EQ(ReasonOf(Row("1", "Order", std::nullopt, "{}")), "column aggregateid is NULL");
  EXPECT_EQ(ReasonOf(Row(std::nullopt, "Order", "o-1", "{}")), "column event_id is NULL");
}

TEST_F(MapperErrorTest, UnchangedToastInANeededColumn) {
  Start();
  const std::vector<TestColumn> row = {{"1"}, {"Order"}, {"o-1"}, {"T"}, {std::nullopt, 'u'}};
  EXPECT_EQ(ReasonOf(inserts_.Make(kOutboxId, row)),
            "column payload is an unchanged TOAST value ('u'), which an INSERT should not carry");
}

TEST_F(MapperErrorTest, BinaryColumnValue) {
  Start();
  const std::vector<TestColumn> row = {{"1"}, {"\x00\x01", 'b'}, {"o-1"}, {"T"}, {"{}"}};
  EXPECT_EQ(ReasonOf(inserts_.Make(kOutboxId, row)),
            "column aggregatetype arrived in binary format ('b'); outboxd expects text values");
}

TEST_F(MapperErrorTest, UnchangedToastInAPlacedHeaderColumn) {
  cfg_.additional_placement = {{"type", "type"}};
  Start();
  const std::vector<TestColumn> row = {{"1"}, {"Order"}, {"o-1"}, {std::nullopt, 'u'}, {"{}"}};
  EXPECT_THAT(ReasonOf(inserts_.Make(kOutboxId, row)),
              ::testing::StartsWith("column type is an unchanged TOAST value"));
}

TEST_F(MapperErrorTest, MalformedByteaPayload) {
  Start({{"id", kUuid},
         {"aggregatetype", kVarchar},
         {"aggregateid", kVarchar},
         {"type", kVarchar},
         {"payload", kBytea}});
  EXPECT_EQ(ReasonOf(Row("1", "Order", "o-1", "\\x123")),
            "bytea payload is not \\x hex: odd number of hex digits");
  EXPECT_EQ(ReasonOf(Row("1", "Order", "o-1", "\\xZZ")),
            "bytea payload is not \\x hex: invalid hex digit at offset 2");
}

TEST_F(MapperErrorTest, RoutedTopicWithIllegalCharacters) {
  Start();
  EXPECT_EQ(ReasonOf(Row("1", "Order/Line", "o-1", "{}")),
            "topic \"outbox.event.Order/Line\" routed by column aggregatetype is not a legal "
            "Kafka topic name: character '/' is not allowed; use only [a-zA-Z0-9._-]");
  EXPECT_THAT(ReasonOf(Row("1", "Bestellung Ä", "o-1", "{}")),
              ::testing::HasSubstr("character ' ' is not allowed"));
}

TEST_F(MapperErrorTest, RoutedTopicTooLong) {
  Start();
  // "outbox.event." is 13 characters; 236 more make 249, the longest legal name.
  ASSERT_TRUE(mapper_->Map(Row("1", std::string(236, 'a'), "o-1", "{}"), source_, event_).ok());
  EXPECT_THAT(ReasonOf(Row("1", std::string(237, 'a'), "o-1", "{}")),
              ::testing::EndsWith("is not a legal Kafka topic name: it is 250 characters long; "
                                  "Kafka allows at most 249"));
}

}  // namespace
}  // namespace outboxd::outbox
