// Strictness: malformed, truncated or unsupported bytes become DataLoss naming message and field.

#include <string>
#include <string_view>

#include "gtest/gtest.h"
#include "pgoutput/decoder.h"
#include "pgoutput/wire.h"
#include "support/pgoutput_encoder.h"
#include "unit/pgoutput/test_messages.h"

namespace outboxd::pgoutput {
namespace {

namespace enc = outboxd::testing;
using enc::WireWriter;

// Expects Decode(bytes) to fail with DataLoss whose message contains `expected`.
void ExpectDataLoss(std::string_view bytes, std::string_view expected) {
  const absl::StatusOr<Message> result = Decode(bytes);
  ASSERT_FALSE(result.ok()) << "decoded as variant " << result->index();
  EXPECT_EQ(result.status().code(), absl::StatusCode::kDataLoss) << result.status();
  // absl::string_view is not std::string_view in this abseil build (ABSL_OPTION_USE_STD_*=0).
  const absl::string_view message = result.status().message();
  EXPECT_NE(std::string_view(message.data(), message.size()).find(expected), std::string_view::npos)
      << result.status() << "\n  expected to contain: " << expected;
}

std::string TextTuple(std::string_view value) {
  return enc::EncodeTupleData({std::optional<std::string>(std::string(value))});
}

TEST(DecoderErrorTest, EveryTruncatedPrefixIsDataLoss) {
  for (const testing::SampleMessage& sample : testing::SampleMessages()) {
    for (size_t n = 0; n < sample.bytes.size(); ++n) {
      SCOPED_TRACE(sample.type + " prefix of " + std::to_string(n) + " bytes");
      // A separate allocation of exactly n bytes, so an over-read is a real out-of-bounds read.
      const std::string prefix = sample.bytes.substr(0, n);
      ExpectDataLoss(prefix, n == 0 ? "pgoutput: empty message" : "pgoutput " + sample.type + ":");
    }
  }
}

TEST(DecoderErrorTest, TrailingBytesAreDataLoss) {
  for (const testing::SampleMessage& sample : testing::SampleMessages()) {
    SCOPED_TRACE(sample.type);
    ExpectDataLoss(sample.bytes + '\0', "pgoutput " + sample.type + ": 1 trailing bytes");
    ExpectDataLoss(sample.bytes + "xyz", "pgoutput " + sample.type + ": 3 trailing bytes");
  }
}

TEST(DecoderErrorTest, UnknownTag) {
  ExpectDataLoss("Z", "pgoutput: unknown message tag 0x5a ('Z')");
  ExpectDataLoss(std::string(1, '\0'), "pgoutput: unknown message tag 0x00");
  ExpectDataLoss("\xff", "pgoutput: unknown message tag 0xff");
}

TEST(DecoderErrorTest, StreamingTagsExplainTheSlotOptions) {
  for (std::string_view tag : {"S", "E", "c", "A"}) {
    SCOPED_TRACE(tag);
    ExpectDataLoss(tag, "Stream ");
    ExpectDataLoss(tag, "streaming/two_phase off");
  }
  ExpectDataLoss("P", "pgoutput: Prepare message (tag 0x50 ('P')) is not protocol v1");
}

TEST(DecoderErrorTest, CommitFlagsMustBeZero) {
  ExpectDataLoss(enc::EncodeCommit(Lsn(1), Lsn(2), 3, /*flags=*/1),
                 "pgoutput Commit: unknown flags 0x01");
}

TEST(DecoderErrorTest, UnknownLogicalMessageFlags) {
  const std::string bytes =
      WireWriter().Byte(wire::kMessage).Byte(0x03).Int64(1).CString("p").Int32(0).Take();
  ExpectDataLoss(bytes, "pgoutput Message: unknown flags 0x03");
}

TEST(DecoderErrorTest, InsertMustCarryANewTuple) {
  const std::string bytes =
      WireWriter().Byte(wire::kInsert).Int32(1).Byte(wire::kKeyTuple).Raw(TextTuple("a")).Take();
  ExpectDataLoss(bytes, "pgoutput Insert: unknown tuple marker 0x4b ('K'), expected 'N'");
}

TEST(DecoderErrorTest, UpdateMarkers) {
  ExpectDataLoss(enc::EncodeUpdate(RelationId{1}, 'X', TextTuple("a"), TextTuple("b")),
                 "pgoutput Update: unknown tuple marker 0x58 ('X'), expected 'K', 'O' or 'N'");
  // After the old tuple only 'N' may follow.
  const std::string bytes = WireWriter()
                                .Byte(wire::kUpdate)
                                .Int32(1)
                                .Byte(wire::kKeyTuple)
                                .Raw(TextTuple("a"))
                                .Byte(wire::kOldTuple)
                                .Raw(TextTuple("b"))
                                .Take();
  ExpectDataLoss(bytes, "pgoutput Update: unknown new tuple marker 0x4f ('O'), expected 'N'");
}

TEST(DecoderErrorTest, DeleteMarkers) {
  ExpectDataLoss(enc::EncodeDelete(RelationId{1}, wire::kNewTuple, TextTuple("a")),
                 "pgoutput Delete: unknown tuple marker 0x4e ('N'), expected 'K' or 'O'");
  ExpectDataLoss(enc::EncodeDelete(RelationId{1}, 'x', TextTuple("a")),
                 "pgoutput Delete: unknown tuple marker 0x78 ('x'), expected 'K' or 'O'");
}

TEST(DecoderErrorTest, UnknownColumnKind) {
  const std::string tuple = WireWriter().Int16(2).Byte('n').Byte('x').Take();
  ExpectDataLoss(enc::EncodeInsert(RelationId{1}, tuple),
                 "pgoutput Insert: unknown new TupleData column 1 kind 0x78 ('x')");
  ExpectDataLoss(enc::EncodeDelete(RelationId{1}, wire::kKeyTuple, tuple),
                 "pgoutput Delete: unknown key TupleData column 1 kind");
}

TEST(DecoderErrorTest, ColumnLengths) {
  const std::string negative = WireWriter().Int16(1).Byte('t').Int32(0xFFFFFFFF).Take();
  ExpectDataLoss(enc::EncodeInsert(RelationId{1}, negative),
                 "pgoutput Insert: negative new TupleData column 0 length -1");
  const std::string oversized = WireWriter().Int16(1).Byte('b').Int32(12).Raw("12345").Take();
  ExpectDataLoss(enc::EncodeUpdate(RelationId{1}, 0, "", oversized),
                 "pgoutput Update: truncated new TupleData column 0 (need 12 bytes, have 5)");
  // More columns announced than sent.
  ExpectDataLoss(enc::EncodeInsert(RelationId{1}, WireWriter().Int16(3).Byte('n').Take()),
                 "pgoutput Insert: truncated new TupleData column 1 kind (need 1 bytes, have 0)");
}

TEST(DecoderErrorTest, RelationFields) {
  const std::vector<RelationColumn> columns = {{0, "id", 20, -1}};
  ExpectDataLoss(enc::EncodeRelation(RelationId{1}, "public", "t", 'z', columns),
                 "pgoutput Relation: unknown replica identity 0x7a ('z')");
  const std::vector<RelationColumn> flagged = {{0, "id", 20, -1}, {0x02, "x", 20, -1}};
  ExpectDataLoss(enc::EncodeRelation(RelationId{1}, "public", "t", 'd', flagged),
                 "pgoutput Relation: unknown column 1 flags 0x02");
  // A forged column count fails before anything is reserved.
  const std::string forged = WireWriter()
                                 .Byte(wire::kRelation)
                                 .Int32(1)
                                 .CString("")
                                 .CString("t")
                                 .Byte('d')
                                 .Int16(65535)
                                 .Take();
  ExpectDataLoss(forged, "pgoutput Relation: truncated columns (need 655350 bytes, have 0)");
  ExpectDataLoss(WireWriter().Byte(wire::kRelation).Int32(1).Raw("public").Take(),
                 "pgoutput Relation: unterminated namespace (no NUL in 6 remaining bytes)");
}

TEST(DecoderErrorTest, TruncateFields) {
  ExpectDataLoss(WireWriter().Byte(wire::kTruncate).Int32(0xFFFFFFFF).Byte(0).Take(),
                 "pgoutput Truncate: negative relation count -1");
  ExpectDataLoss(WireWriter().Byte(wire::kTruncate).Int32(0x7FFFFFFF).Byte(0).Int32(1).Take(),
                 "pgoutput Truncate: truncated relation OIDs (need 8589934588 bytes, have 4)");
  ExpectDataLoss(enc::EncodeTruncate(0x04, {RelationId{1}}),
                 "pgoutput Truncate: unknown options 0x04");
}

TEST(DecoderErrorTest, LogicalMessageContentLength) {
  const auto message_with_length = [](uint32_t length) {
    return WireWriter()
        .Byte(wire::kMessage)
        .Byte(0)
        .Int64(1)
        .CString("p")
        .Int32(length)
        .Raw("ab")
        .Take();
  };
  ExpectDataLoss(message_with_length(0x80000000),
                 "pgoutput Message: negative content length -2147483648");
  ExpectDataLoss(message_with_length(3),
                 "pgoutput Message: truncated content (need 3 bytes, have 2)");
  ExpectDataLoss(message_with_length(1), "pgoutput Message: 1 trailing bytes");
}

}  // namespace
}  // namespace outboxd::pgoutput
