#include "unit/pgoutput/test_messages.h"

#include <iterator>
#include <variant>

#include "pgoutput/wire.h"
#include "support/pgoutput_encoder.h"

namespace outboxd::pgoutput::testing {
namespace {

using outboxd::testing::TestColumn;

std::string MixedTuple() {
  return outboxd::testing::EncodeTupleData(std::vector<TestColumn>{
      {std::string("42")},
      {std::nullopt},
      {std::nullopt, wire::kColumnUnchangedToast},
      {std::string("\x00\x01\xff", 3), wire::kColumnBinary},
      {std::string("")},
  });
}

std::vector<SampleMessage> BuildSamples() {
  namespace enc = outboxd::testing;
  const std::string mixed = MixedTuple();
  const std::string key = enc::EncodeTupleData({std::optional<std::string>("7")});
  const std::vector<RelationColumn> columns = {
      {wire::kColumnFlagKey, "id", 20, -1},
      {0, "payload", 3802, -1},
      {0, "topic", 1043, 104},
  };
  return {
      {"Begin", enc::EncodeBegin(Lsn(0x16B374D848), 739000000123456, Xid{123456})},
      {"Commit", enc::EncodeCommit(Lsn(0x16B374D848), Lsn(0x16B374D878), 739000000123457)},
      {"Origin", enc::EncodeOrigin(Lsn(0xABCDEF), "node_a")},
      {"Relation", enc::EncodeRelation(RelationId{16384}, "public", "outbox", 'd', columns)},
      {"Relation", enc::EncodeRelation(RelationId{16385}, "", "empty", 'f', {})},
      {"Type", enc::EncodeType(16390, "public", "mood")},
      {"Insert", enc::EncodeInsert(RelationId{16384}, mixed)},
      {"Insert",
       enc::EncodeInsert(RelationId{16384}, enc::EncodeTupleData(std::vector<TestColumn>{}))},
      {"Update", enc::EncodeUpdate(RelationId{16384}, 0, "", mixed)},
      {"Update", enc::EncodeUpdate(RelationId{16384}, wire::kKeyTuple, key, mixed)},
      {"Update", enc::EncodeUpdate(RelationId{16384}, wire::kOldTuple, mixed, mixed)},
      {"Delete", enc::EncodeDelete(RelationId{16384}, wire::kKeyTuple, key)},
      {"Delete", enc::EncodeDelete(RelationId{16384}, wire::kOldTuple, mixed)},
      {"Truncate", enc::EncodeTruncate(wire::kTruncateCascade | wire::kTruncateRestartIdentity,
                                       {RelationId{1}, RelationId{2}, RelationId{0xFFFFFFFF}})},
      {"Message", enc::EncodeMessage(true, Lsn(0x1234), "outboxd", std::string("a\0b", 3))},
      {"Message", enc::EncodeMessage(false, Lsn(0x1235), "", "")},
  };
}

}  // namespace

const std::vector<SampleMessage>& SampleMessages() {
  static const std::vector<SampleMessage> samples = BuildSamples();
  return samples;
}

std::vector<std::string> RenderColumns(const TupleData& tuple) {
  std::vector<std::string> out;
  for (TupleData::Reader reader(tuple); !reader.Done();) {
    const ColumnValue column = reader.Next();
    std::string rendered(1, static_cast<char>(column.kind));
    if (column.kind == ColumnKind::kText || column.kind == ColumnKind::kBinary) {
      rendered.append(":").append(column.data);
    }
    out.push_back(std::move(rendered));
  }
  return out;
}

std::string_view TypeName(const Message& message) {
  static constexpr std::string_view kNames[] = {"Begin",    "Commit", "Origin", "Relation",
                                                "Type",     "Insert", "Update", "Delete",
                                                "Truncate", "Message"};
  static_assert(std::size(kNames) == std::variant_size_v<Message>);
  return kNames[message.index()];
}

std::vector<const TupleData*> TuplesOf(const Message& message) {
  if (const auto* insert = std::get_if<Insert>(&message)) return {&insert->new_tuple};
  if (const auto* update = std::get_if<Update>(&message)) {
    if (update->has_old) return {&update->old_tuple, &update->new_tuple};
    return {&update->new_tuple};
  }
  if (const auto* del = std::get_if<Delete>(&message)) return {&del->old_tuple};
  return {};
}

}  // namespace outboxd::pgoutput::testing
