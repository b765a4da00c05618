// Round trips: every message the test encoder builds decodes back to the same fields.

#include "pgoutput/decoder.h"

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "gtest/gtest.h"
#include "pgoutput/wire.h"
#include "support/pgoutput_encoder.h"
#include "unit/pgoutput/test_messages.h"

namespace outboxd::pgoutput {
namespace {

namespace enc = outboxd::testing;
using enc::TestColumn;
using testing::RenderColumns;

// Decodes `bytes` as an M, failing the test (and returning M{}) on any error.
template <typename M>
M DecodeAs(std::string_view bytes) {
  absl::StatusOr<Message> result = Decode(bytes);
  if (!result.ok()) {
    ADD_FAILURE() << result.status();
    return M{};
  }
  if (!std::holds_alternative<M>(*result)) {
    ADD_FAILURE() << "decoded variant index " << result->index();
    return M{};
  }
  return std::get<M>(*std::move(result));
}

const std::vector<std::string> kMixedRendered = {"t:42", "n", "u", std::string("b:\x00\x01\xff", 5),
                                                 "t:"};

std::string MixedTuple() {
  return enc::EncodeTupleData(std::vector<TestColumn>{
      {std::string("42")},
      {std::nullopt},
      {std::nullopt, wire::kColumnUnchangedToast},
      {std::string("\x00\x01\xff", 3), wire::kColumnBinary},
      {std::string("")},
  });
}

TEST(DecoderTest, Begin) {
  const std::string bytes = enc::EncodeBegin(Lsn(0x16B374D848), -5, Xid{0xFFFFFFFE});
  const Begin m = DecodeAs<Begin>(bytes);
  EXPECT_EQ(m.final_lsn, Lsn(0x16B374D848));
  EXPECT_EQ(m.commit_time_us, -5);
  EXPECT_EQ(m.xid, Xid{0xFFFFFFFE});
}

TEST(DecoderTest, Commit) {
  const std::string bytes = enc::EncodeCommit(Lsn(0x10), Lsn(0xFFFFFFFF00000001), 739000000123457);
  const Commit m = DecodeAs<Commit>(bytes);
  EXPECT_EQ(m.flags, 0);
  EXPECT_EQ(m.commit_lsn, Lsn(0x10));
  EXPECT_EQ(m.end_lsn, Lsn(0xFFFFFFFF00000001));
  EXPECT_EQ(m.commit_time_us, 739000000123457);
}

TEST(DecoderTest, Origin) {
  const std::string bytes = enc::EncodeOrigin(Lsn(0xABCDEF), "node_a");
  const Origin m = DecodeAs<Origin>(bytes);
  EXPECT_EQ(m.origin_lsn, Lsn(0xABCDEF));
  EXPECT_EQ(m.name, "node_a");
}

TEST(DecoderTest, Relation) {
  const std::vector<RelationColumn> columns = {
      {wire::kColumnFlagKey, "id", 20, -1},
      {0, "topic", 1043, 104},
  };
  const std::string bytes = enc::EncodeRelation(RelationId{16384}, "", "outbox", 'i', columns);
  const Relation m = DecodeAs<Relation>(bytes);
  EXPECT_EQ(m.id, RelationId{16384});
  EXPECT_EQ(m.namespace_name, "");
  EXPECT_EQ(m.relation_name, "outbox");
  EXPECT_EQ(m.replica_identity, 'i');
  ASSERT_EQ(m.columns.size(), 2u);
  for (size_t i = 0; i < columns.size(); ++i) {
    EXPECT_EQ(m.columns[i].flags, columns[i].flags) << i;
    EXPECT_EQ(m.columns[i].name, columns[i].name) << i;
    EXPECT_EQ(m.columns[i].type_oid, columns[i].type_oid) << i;
    EXPECT_EQ(m.columns[i].type_modifier, columns[i].type_modifier) << i;
  }
}

TEST(DecoderTest, Type) {
  const std::string bytes = enc::EncodeType(16390, "public", "mood");
  const Type m = DecodeAs<Type>(bytes);
  EXPECT_EQ(m.type_oid, 16390u);
  EXPECT_EQ(m.namespace_name, "public");
  EXPECT_EQ(m.type_name, "mood");
}

TEST(DecoderTest, InsertWithEveryColumnKind) {
  const std::string bytes = enc::EncodeInsert(RelationId{16384}, MixedTuple());
  const Insert m = DecodeAs<Insert>(bytes);
  EXPECT_EQ(m.relation, RelationId{16384});
  EXPECT_EQ(m.new_tuple.column_count, 5);
  EXPECT_EQ(RenderColumns(m.new_tuple), kMixedRendered);
}

TEST(DecoderTest, InsertWithNoColumns) {
  const std::string bytes =
      enc::EncodeInsert(RelationId{1}, enc::EncodeTupleData(std::vector<TestColumn>{}));
  const Insert m = DecodeAs<Insert>(bytes);
  EXPECT_EQ(m.new_tuple.column_count, 0);
  EXPECT_TRUE(TupleData::Reader(m.new_tuple).Done());
}

TEST(DecoderTest, InsertColumnViewsPointIntoTheInput) {
  const std::string bytes =
      enc::EncodeInsert(RelationId{1}, enc::EncodeTupleData({std::optional<std::string>("abc")}));
  const Insert m = DecodeAs<Insert>(bytes);
  TupleData::Reader reader(m.new_tuple);
  const ColumnValue value = reader.Next();
  EXPECT_EQ(value.data.data(), bytes.data() + bytes.size() - 3);
  EXPECT_TRUE(reader.Done());
}

TEST(DecoderTest, UpdateWithoutOldTuple) {
  const std::string bytes = enc::EncodeUpdate(RelationId{7}, 0, "", MixedTuple());
  const Update m = DecodeAs<Update>(bytes);
  EXPECT_EQ(m.relation, RelationId{7});
  EXPECT_FALSE(m.has_old);
  EXPECT_FALSE(m.old_is_key);
  EXPECT_EQ(m.old_tuple.column_count, 0);
  EXPECT_EQ(RenderColumns(m.new_tuple), kMixedRendered);
}

TEST(DecoderTest, UpdateWithKeyTuple) {
  const std::string key = enc::EncodeTupleData({std::optional<std::string>("7")});
  const std::string bytes = enc::EncodeUpdate(RelationId{7}, wire::kKeyTuple, key, MixedTuple());
  const Update m = DecodeAs<Update>(bytes);
  EXPECT_TRUE(m.has_old);
  EXPECT_TRUE(m.old_is_key);
  EXPECT_EQ(RenderColumns(m.old_tuple), std::vector<std::string>{"t:7"});
  EXPECT_EQ(RenderColumns(m.new_tuple), kMixedRendered);
}

TEST(DecoderTest, UpdateWithOldTuple) {
  const std::string old = enc::EncodeTupleData({std::optional<std::string>("x"), std::nullopt});
  const std::string bytes = enc::EncodeUpdate(RelationId{7}, wire::kOldTuple, old, MixedTuple());
  const Update m = DecodeAs<Update>(bytes);
  EXPECT_TRUE(m.has_old);
  EXPECT_FALSE(m.old_is_key);
  EXPECT_EQ(RenderColumns(m.old_tuple), (std::vector<std::string>{"t:x", "n"}));
  EXPECT_EQ(RenderColumns(m.new_tuple), kMixedRendered);
}

TEST(DecoderTest, DeleteWithKeyTuple) {
  const std::string key = enc::EncodeTupleData({std::optional<std::string>("7")});
  const std::string bytes = enc::EncodeDelete(RelationId{9}, wire::kKeyTuple, key);
  const Delete m = DecodeAs<Delete>(bytes);
  EXPECT_EQ(m.relation, RelationId{9});
  EXPECT_TRUE(m.old_is_key);
  EXPECT_EQ(RenderColumns(m.old_tuple), std::vector<std::string>{"t:7"});
}

TEST(DecoderTest, DeleteWithOldTuple) {
  const std::string bytes = enc::EncodeDelete(RelationId{9}, wire::kOldTuple, MixedTuple());
  const Delete m = DecodeAs<Delete>(bytes);
  EXPECT_FALSE(m.old_is_key);
  EXPECT_EQ(RenderColumns(m.old_tuple), kMixedRendered);
}

TEST(DecoderTest, Truncate) {
  const std::string bytes =
      enc::EncodeTruncate(wire::kTruncateCascade, {RelationId{1}, RelationId{0xFFFFFFFF}});
  const Truncate m = DecodeAs<Truncate>(bytes);
  EXPECT_EQ(m.options, wire::kTruncateCascade);
  EXPECT_EQ(m.relations, (std::vector<RelationId>{RelationId{1}, RelationId{0xFFFFFFFF}}));
}

TEST(DecoderTest, TransactionalMessageWithBinaryContent) {
  const std::string content("a\0b\xff", 4);
  const std::string bytes = enc::EncodeMessage(true, Lsn(0x1234), "outboxd", content);
  const LogicalMessage m = DecodeAs<LogicalMessage>(bytes);
  EXPECT_TRUE(m.transactional);
  EXPECT_EQ(m.lsn, Lsn(0x1234));
  EXPECT_EQ(m.prefix, "outboxd");
  EXPECT_EQ(m.content, content);
}

TEST(DecoderTest, NonTransactionalEmptyMessage) {
  const std::string bytes = enc::EncodeMessage(false, Lsn(1), "p", "");
  const LogicalMessage m = DecodeAs<LogicalMessage>(bytes);
  EXPECT_FALSE(m.transactional);
  EXPECT_EQ(m.prefix, "p");
  EXPECT_EQ(m.content, "");
}

TEST(DecoderTest, EverySampleDecodesToItsType) {
  for (const testing::SampleMessage& sample : testing::SampleMessages()) {
    absl::StatusOr<Message> result = Decode(sample.bytes);
    ASSERT_TRUE(result.ok()) << sample.type << ": " << result.status();
    EXPECT_EQ(testing::TypeName(*result), sample.type);
  }
}

}  // namespace
}  // namespace outboxd::pgoutput
