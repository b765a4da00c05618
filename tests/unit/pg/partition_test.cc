// Parallel slots' pure parts: the row filter, its comparison with Postgres' deparsed text, and
// the judgement of the slots that exist. The filter's behaviour inside Postgres (the sign bit,
// NULL ids) is tested against a real server in tests/integration/parallel_slots_test.cc.

#include "pg/partition.h"

#include "absl/status/status.h"
#include "common/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd::pg {
namespace {

using ::testing::HasSubstr;

TEST(PartitionFilterTest, MasksTheSignBitAndMapsNullToZero) {
  EXPECT_EQ(PartitionFilter("hashtext(\"aggregateid\"::text)", 4, 3),
            "(coalesce(hashtext(\"aggregateid\"::text), 0) & 2147483647) % 4 = 3");
}

// PG 15 refuses a cast to text of uuid or bigint in a row filter (an I/O coercion: "invalid
// publication WHERE expression"), so those types get their own built-in hash.
TEST(HashOfTest, EachAggregateIdTypeHasAnImmutableBuiltInHash) {
  EXPECT_EQ(HashOf("c", 25), "hashtext(c::text)");    // text
  EXPECT_EQ(HashOf("c", 1043), "hashtext(c::text)");  // varchar
  EXPECT_EQ(HashOf("c", 1042), "hashtext(c::text)");  // char(n)
  EXPECT_EQ(HashOf("c", 2950), "uuid_hash(c)");
  EXPECT_EQ(HashOf("c", 21), "hashint2(c)");
  EXPECT_EQ(HashOf("c", 23), "hashint4(c)");
  EXPECT_EQ(HashOf("c", 20), "hashint8(c)");
  EXPECT_EQ(HashOf("c", 3802), std::nullopt);  // jsonb
}

// What PG 15 stores for the filter, read back from pg_publication_tables.rowfilter: on a text
// column the no-op cast disappears, on varchar it stays, parenthesised.
TEST(SameRowFilterTest, AcceptsPostgresDeparsedText) {
  // The column as libpq quotes it.
  const std::string ours = PartitionFilter("hashtext(\"aggregateid\"::text)", 4, 1);
  EXPECT_TRUE(SameRowFilter(ours, "(((COALESCE(hashtext(aggregateid), 0) & 2147483647) % 4) = 1)"));
  EXPECT_TRUE(
      SameRowFilter(ours, "(((COALESCE(hashtext((aggregateid)::text), 0) & 2147483647) % 4) = 1)"));
}

TEST(SameRowFilterTest, AcceptsTheOtherHashesDeparsed) {
  EXPECT_TRUE(SameRowFilter(PartitionFilter("uuid_hash(\"a\")", 4, 0),
                            "(((COALESCE(uuid_hash(a), 0) & 2147483647) % 4) = 0)"));
  EXPECT_TRUE(SameRowFilter(PartitionFilter("hashint8(\"b\")", 4, 0),
                            "(((COALESCE(hashint8(b), 0) & 2147483647) % 4) = 0)"));
}

TEST(SameRowFilterTest, RejectsAnotherCountIndexOrHash) {
  const std::string ours = PartitionFilter("hashtext(aggregateid::text)", 4, 1);
  EXPECT_FALSE(
      SameRowFilter(ours, "(((COALESCE(hashtext(aggregateid), 0) & 2147483647) % 2) = 1)"));
  EXPECT_FALSE(
      SameRowFilter(ours, "(((COALESCE(hashtext(aggregateid), 0) & 2147483647) % 4) = 2)"));
  EXPECT_FALSE(SameRowFilter(ours, "((abs(hashtext(aggregateid)) % 4) = 1)"));
  EXPECT_FALSE(SameRowFilter(ours, "(((COALESCE(hashtext(other), 0) & 2147483647) % 4) = 1)"));
}

TEST(RowFilterSupportTest, Pg14IsRefusedOnlyWithSeveralSlots) {
  EXPECT_TRUE(CheckRowFilterSupport(140022, 1).ok());
  EXPECT_TRUE(CheckRowFilterSupport(150019, 4).ok());
  const absl::Status refused = CheckRowFilterSupport(140022, 2);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(MessageOf(refused),
            "[postgres] parallel_slots = 2 needs publication row filters, which PostgreSQL 14 "
            "lacks (they came in 15); upgrade Postgres to 15 or later, or set parallel_slots = 1");
}

TEST(JudgeSlotFamilyTest, TheFamilyOfTheCountIsAccepted) {
  EXPECT_TRUE(JudgeSlotFamily("o", 1, {}).ok());
  EXPECT_TRUE(JudgeSlotFamily("o", 1, {"o"}).ok());
  EXPECT_TRUE(JudgeSlotFamily("o", 4, {}).ok());
  EXPECT_TRUE(JudgeSlotFamily("o", 4, {"o_0", "o_2"}).ok());  // The others are created.
  EXPECT_TRUE(JudgeSlotFamily("o", 4, {"o_0", "o_1", "o_2", "o_3"}).ok());
}

TEST(JudgeSlotFamilyTest, TheOneSlotLeftAloneIsRefusedWithSeveral) {
  const absl::Status s = JudgeSlotFamily("o", 4, {"o"});
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(MessageOf(s), HasSubstr("replication slot(s) o exist, which [postgres] "
                                      "parallel_slots = 4 does not use (they look like "
                                      "parallel_slots = 1)"));
  EXPECT_THAT(MessageOf(s), HasSubstr("set parallel_slots = 1 again, or, only once they are "
                                      "drained and no longer needed, drop them: SELECT "
                                      "pg_drop_replication_slot('o')"));
}

TEST(JudgeSlotFamilyTest, SlotsOfALargerCountAreRefused) {
  const absl::Status s = JudgeSlotFamily("o", 4, {"o_0", "o_1", "o_2", "o_3", "o_4", "o_5"});
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(MessageOf(s), HasSubstr("replication slot(s) o_4, o_5 exist"));
  EXPECT_THAT(MessageOf(s), HasSubstr("(they look like parallel_slots = 6)"));
}

// Back to one slot: numbered slots while the single one does not exist yet would leave their
// backlog behind while a fresh slot starts at "now".
TEST(JudgeSlotFamilyTest, NumberedSlotsWithoutTheSingleOneAreRefusedForOne) {
  const absl::Status s = JudgeSlotFamily("o", 1, {"o_0", "o_1"});
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(MessageOf(s), HasSubstr("replication slot(s) o_0, o_1 exist, which [postgres] "
                                      "parallel_slots = 1 does not use (they look like "
                                      "parallel_slots = 2)"));
  // The single slot exists already: today's behaviour, whatever else is there.
  EXPECT_TRUE(JudgeSlotFamily("o", 1, {"o", "o_0"}).ok());
}

}  // namespace
}  // namespace outboxd::pg
