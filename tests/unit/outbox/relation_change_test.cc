// A Relation message is re-sent after ALTER TABLE; the mapper must follow the new layout.
// Also one end-to-end pass through the real decoder, to pin the contract between the two.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "outbox/mapper.h"
#include "pgoutput/decoder.h"
#include "support/mapper_test_util.h"

namespace outboxd::outbox {
namespace {

using testing::kBytea;
using testing::kJsonb;
using testing::kOutboxId;
using testing::kText;
using testing::kUuid;
using testing::kVarchar;
using testing::MakeRelation;

class RelationChangeTest : public testing::MapperFixture {
 protected:
  void Resend(const testing::Columns& columns) {
    mapper_->OnRelation(MakeRelation(kOutboxId, "public", "outbox", columns));
  }
};

TEST_F(RelationChangeTest, ColumnAddedAtTheEnd) {
  Start();
  Resend({{"id", kUuid},
          {"aggregatetype", kVarchar},
          {"aggregateid", kVarchar},
          {"type", kVarchar},
          {"payload", kJsonb},
          {"created_at", 1184}});
  ASSERT_TRUE(mapper_
                  ->Map(inserts_.Make(kOutboxId, {"1", "Order", "o-1", "T", "{}", "2024-01-01"}),
                        source_, event_)
                  .ok());
  EXPECT_EQ(event_.key, "o-1");
  EXPECT_EQ(event_.value, "{}");
}

TEST_F(RelationChangeTest, ColumnOrderChanged) {
  Start();
  // E.g. the table was recreated with another column order under the same OID's successor.
  Resend({{"payload", kJsonb},
          {"aggregateid", kVarchar},
          {"id", kUuid},
          {"extra", kText},
          {"aggregatetype", kVarchar}});
  ASSERT_TRUE(mapper_
                  ->Map(inserts_.Make(kOutboxId, {"{\"x\":1}", "o-9", "id-9", "e", "Invoice"}),
                        source_, event_)
                  .ok());
  EXPECT_EQ(event_.topic, "outbox.event.Invoice");
  EXPECT_EQ(event_.key, "o-9");
  EXPECT_EQ(event_.value, "{\"x\":1}");
  EXPECT_EQ(event_.headers.front().value, "id-9");
}

TEST_F(RelationChangeTest, ConfiguredColumnDroppedThenRestored) {
  Start();
  Resend({{"id", kUuid}, {"aggregatetype", kVarchar}, {"type", kVarchar}, {"payload", kJsonb}});
  EXPECT_TRUE(mapper_->IsOutboxTable(kOutboxId));  // Still an outbox table: rows go to the DLQ.
  EXPECT_EQ(ReasonOf(inserts_.Make(kOutboxId, {"1", "Order", "T", "{}"})),
            "column aggregateid not found in public.outbox");
  Resend(testing::DebeziumColumns());
  ASSERT_TRUE(mapper_->Map(Row("1", "Order", "o-1", "{}"), source_, event_).ok());
  EXPECT_EQ(event_.key, "o-1");
}

TEST_F(RelationChangeTest, PayloadTypeChangedToBytea) {
  Start();
  Resend({{"id", kUuid},
          {"aggregatetype", kVarchar},
          {"aggregateid", kVarchar},
          {"type", kVarchar},
          {"payload", kBytea}});
  ASSERT_TRUE(mapper_->Map(Row("1", "Order", "o-1", "\\x6869"), source_, event_).ok());
  EXPECT_EQ(event_.value, "hi");
}

TEST_F(RelationChangeTest, TableRenamedAwayStopsBeingAnOutboxTable) {
  Start();
  mapper_->OnRelation(MakeRelation(kOutboxId, "public", "outbox_old", testing::DebeziumColumns()));
  EXPECT_FALSE(mapper_->IsOutboxTable(kOutboxId));
  EXPECT_EQ(mapper_->TableName(kOutboxId), "public.outbox_old");
}

TEST_F(RelationChangeTest, EndToEndThroughTheDecoder) {
  Create();
  std::vector<pgoutput::RelationColumn> columns;
  for (const auto& [name, oid] : testing::DebeziumColumns()) {
    columns.push_back(pgoutput::RelationColumn{0, name, oid, -1});
  }
  const std::string relation_bytes =
      outboxd::testing::EncodeRelation(kOutboxId, "public", "outbox", 'd', columns);
  absl::StatusOr<pgoutput::Message> relation = pgoutput::Decode(relation_bytes);
  ASSERT_TRUE(relation.ok()) << relation.status();
  mapper_->OnRelation(std::get<pgoutput::Relation>(*relation));

  const std::string insert_bytes = outboxd::testing::EncodeInsert(
      kOutboxId, outboxd::testing::EncodeTupleData(std::vector<std::optional<std::string>>{
                     "id-1", "Order", "o-1", "OrderCreated", R"({"a":1})"}));
  absl::StatusOr<pgoutput::Message> insert = pgoutput::Decode(insert_bytes);
  ASSERT_TRUE(insert.ok()) << insert.status();
  ASSERT_TRUE(mapper_->Map(std::get<pgoutput::Insert>(*insert), source_, event_).ok());
  EXPECT_EQ(event_.topic, "outbox.event.Order");
  EXPECT_EQ(event_.key, "o-1");
  EXPECT_EQ(event_.value, R"({"a":1})");
}

}  // namespace
}  // namespace outboxd::outbox
