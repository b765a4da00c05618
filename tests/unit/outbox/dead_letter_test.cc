// Dead-letter records: what an operator gets to diagnose and replay a row (invariant 7).

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "outbox/mapper.h"
#include "support/mapper_test_util.h"

namespace outboxd::outbox {
namespace {

using ::testing::ElementsAre;
using testing::kBytea;
using testing::kOutboxId;
using testing::kUuid;
using testing::kVarchar;

constexpr Lsn kLsn(0x16B374D848);
constexpr Xid kXid{7421};
const EventSource kSource{.commit_lsn = kLsn, .lsn = kLsn, .xid = kXid, .commit_time_us = 0};

class DeadLetterTest : public testing::MapperFixture {};

TEST_F(DeadLetterTest, CarriesTheRowAndWhyItFailed) {
  cfg_.dead_letter_topic = "my.dlq";
  Mapper& mapper = Start();
  const pgoutput::Insert row = Row("id-1", "Order/Line", "o-1", R"({"a":1})");
  const std::string reason = ReasonOf(row);
  ASSERT_TRUE(mapper.MapDeadLetter(row, kSource, reason, event_).ok());
  EXPECT_EQ(event_.topic, "my.dlq");
  EXPECT_EQ(event_.key, "o-1");
  EXPECT_EQ(event_.value, R"({"a":1})");
  EXPECT_THAT(event_.headers,
              ElementsAre(Header{"id", "id-1"}, Header{"outboxd.error", reason},
                          Header{"outboxd.table", "public.outbox"},
                          Header{"outboxd.lsn", "16/B374D848"}, Header{"outboxd.xid", "7421"}));
}

TEST_F(DeadLetterTest, NullColumnsAreLeftOut) {
  Mapper& mapper = Start();
  const pgoutput::Insert row = Row(std::nullopt, "Order", std::nullopt, std::nullopt);
  ASSERT_TRUE(mapper.MapDeadLetter(row, kSource, "column id is NULL", event_).ok());
  EXPECT_EQ(event_.key, std::nullopt);
  EXPECT_EQ(event_.value, std::nullopt);
  ASSERT_EQ(event_.headers.size(), 4u);
  EXPECT_EQ(event_.headers[0].name, "outboxd.error");
}

TEST_F(DeadLetterTest, ByteaPayloadStaysAsStored) {
  Mapper& mapper = Start({{"id", kUuid},
                          {"aggregatetype", kVarchar},
                          {"aggregateid", kVarchar},
                          {"type", kVarchar},
                          {"payload", kBytea}});
  const pgoutput::Insert row = Row("1", "Order", "o-1", "\\x12Z");
  ASSERT_TRUE(mapper.MapDeadLetter(row, kSource, ReasonOf(row), event_).ok());
  EXPECT_EQ(event_.value, "\\x12Z");
}

TEST_F(DeadLetterTest, TableMissingAColumnStillYieldsWhatItHas) {
  Mapper& mapper = Start({{"id", kUuid}, {"aggregatetype", kVarchar}, {"payload", kVarchar}});
  const pgoutput::Insert row = inserts_.Make(kOutboxId, {"1", "Order", "{}"});
  ASSERT_TRUE(mapper.MapDeadLetter(row, kSource, ReasonOf(row), event_).ok());
  EXPECT_EQ(event_.key, std::nullopt);
  EXPECT_EQ(event_.value, "{}");
  EXPECT_EQ(event_.headers[0], (Header{"id", "1"}));
  EXPECT_EQ(event_.headers[1],
            (Header{"outboxd.error", "column aggregateid not found in public.outbox"}));
}

TEST_F(DeadLetterTest, UnknownRelationIsNamedByOid) {
  Create();
  const pgoutput::Insert row = Row("1", "Order", "o-1", "{}");
  ASSERT_TRUE(mapper_->MapDeadLetter(row, kSource, "delivery failed", event_).ok());
  EXPECT_EQ(event_.topic, "outbox.dlq");
  EXPECT_EQ(event_.key, std::nullopt);
  EXPECT_THAT(event_.headers,
              ElementsAre(Header{"outboxd.error", "delivery failed"},
                          Header{"outboxd.table", "relation 16384"},
                          Header{"outboxd.lsn", "16/B374D848"}, Header{"outboxd.xid", "7421"}));
}

TEST_F(DeadLetterTest, CopiesTheReason) {
  Mapper& mapper = Start();
  {
    std::string reason = "broker rejected the record: MSG_SIZE_TOO_LARGE, a long reason indeed";
    ASSERT_TRUE(mapper.MapDeadLetter(Row("1", "Order", "o-1", "{}"), kSource, reason, event_).ok());
    reason.assign(reason.size(), 'x');
  }
  EXPECT_EQ(event_.headers[1].value,
            "broker rejected the record: MSG_SIZE_TOO_LARGE, a long reason indeed");
}

TEST_F(DeadLetterTest, ReusedAfterASuccessfulMapping) {
  Mapper& mapper = Start({{"id", kUuid},
                          {"aggregatetype", kVarchar},
                          {"aggregateid", kVarchar},
                          {"type", kVarchar},
                          {"payload", kBytea}});
  ASSERT_TRUE(mapper.Map(Row("1", "Order", "o-1", "\\x6869"), source_, event_).ok());
  const pgoutput::Insert row = Row("2", "Order", "o-2", "\\x6869");
  ASSERT_TRUE(mapper.MapDeadLetter(row, kSource, "delivery failed", event_).ok());
  EXPECT_EQ(event_.topic, "outbox.dlq");
  EXPECT_EQ(event_.key, "o-2");
  EXPECT_EQ(event_.value, "\\x6869");
  EXPECT_EQ(event_.headers.size(), 5u);
}

TEST_F(DeadLetterTest, ColumnCountDisagreeingWithRelationIsDataLoss) {
  Mapper& mapper = Start();
  EXPECT_EQ(mapper.MapDeadLetter(inserts_.Make(kOutboxId, {"1"}), kSource, "x", event_).code(),
            absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace outboxd::outbox
