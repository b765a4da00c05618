#include "pgoutput/decoder.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "pgoutput/reader.h"
#include "pgoutput/wire.h"

namespace outboxd::pgoutput {
namespace {

using internal::Field;
using internal::WireReader;

// Smallest wire size of one Relation column: flags, empty name's NUL, type OID, typmod.
constexpr size_t kMinRelationColumnBytes = 1 + 1 + 4 + 4;

// "0x78 ('x')" for printable bytes, "0x01" otherwise: tags and markers are ASCII letters.
std::string DescribeByte(uint8_t b) {
  if (b >= 0x20 && b < 0x7F) return fmt::format("0x{:02x} ('{}')", b, static_cast<char>(b));
  return fmt::format("0x{:02x}", b);
}

// Converts the reader's verdict into the result; `message` is only used when it is OK.
template <typename M>
absl::StatusOr<Message> Finish(WireReader& r, M&& message) {
  absl::Status status = r.Finish();
  if (!status.ok()) return status;
  return Message(std::forward<M>(message));
}

// TupleData: Int16 column count, then per column a kind byte, and for 't'/'b' an Int32 length
// and that many bytes. Validates every column so TupleData::Reader::Next needs no checks.
TupleData ReadTupleData(WireReader& r, std::string_view role) {
  TupleData tuple;
  tuple.column_count = r.Int16(Field(role, "TupleData column count"));
  const std::string_view start = r.rest();
  for (int i = 0; i < tuple.column_count && r.ok(); ++i) {
    const uint8_t kind = r.Byte(Field(role, "TupleData column", i, "kind"));
    switch (kind) {
      case wire::kColumnNull:
      case wire::kColumnUnchangedToast:
        break;
      case wire::kColumnText:
      case wire::kColumnBinary: {
        const size_t length = r.Length(Field(role, "TupleData column", i, "length"));
        r.Bytes(length, Field(role, "TupleData column", i));
        break;
      }
      default:
        if (r.ok()) {
          r.Fail(fmt::format("unknown {} {}", Field(role, "TupleData column", i, "kind").ToString(),
                             DescribeByte(kind)));
        }
    }
  }
  tuple.raw = start.substr(0, start.size() - r.remaining());
  return tuple;
}

// Reads a tuple marker byte; `expected` describes the allowed markers for the error message.
uint8_t ReadMarker(WireReader& r, std::string_view expected) {
  const uint8_t marker = r.Byte("tuple marker");
  if (r.ok() && marker != wire::kNewTuple && marker != wire::kKeyTuple &&
      marker != wire::kOldTuple) {
    r.Fail(fmt::format("unknown tuple marker {}, expected {}", DescribeByte(marker), expected));
  }
  return marker;
}

absl::StatusOr<Message> DecodeBegin(WireReader r) {
  Begin m;
  m.final_lsn = Lsn(r.Int64("final_lsn"));                               // Int64 final LSN.
  m.commit_time_us = static_cast<int64_t>(r.Int64("commit timestamp"));  // Int64 µs since 2000.
  m.xid = Xid{r.Int32("xid")};                                           // Int32 xid.
  return Finish(r, m);
}

absl::StatusOr<Message> DecodeCommit(WireReader r) {
  Commit m;
  m.flags = r.Byte("flags");  // Int8 flags, currently unused by Postgres.
  if (r.ok() && m.flags != 0) r.Fail("unknown flags " + DescribeByte(m.flags));
  m.commit_lsn = Lsn(r.Int64("commit_lsn"));                             // Int64 commit LSN.
  m.end_lsn = Lsn(r.Int64("end_lsn"));                                   // Int64 end LSN.
  m.commit_time_us = static_cast<int64_t>(r.Int64("commit timestamp"));  // Int64 µs since 2000.
  return Finish(r, m);
}

absl::StatusOr<Message> DecodeOrigin(WireReader r) {
  Origin m;
  m.origin_lsn = Lsn(r.Int64("origin_lsn"));  // Int64 commit LSN on the origin server.
  m.name = r.CString("origin name");          // String origin name.
  return Finish(r, m);
}

// One Relation column: Int8 flags, String name, Int32 type OID, Int32 atttypmod.
RelationColumn ReadRelationColumn(WireReader& r, int i) {
  RelationColumn c;
  c.flags = r.Byte(Field("", "column", i, "flags"));
  if (r.ok() && (c.flags & ~wire::kColumnFlagKey) != 0) {
    r.Fail(fmt::format("unknown column {} flags {}", i, DescribeByte(c.flags)));
  }
  c.name = r.CString(Field("", "column", i, "name"));
  c.type_oid = r.Int32(Field("", "column", i, "type OID"));
  c.type_modifier = static_cast<int32_t>(r.Int32(Field("", "column", i, "type modifier")));
  return c;
}

absl::StatusOr<Message> DecodeRelation(WireReader r) {
  Relation m;
  m.id = RelationId{r.Int32("relation OID")};       // Int32 relation OID.
  m.namespace_name = r.CString("namespace");        // String namespace, empty for pg_catalog.
  m.relation_name = r.CString("relation name");     // String relation name.
  m.replica_identity = r.Byte("replica identity");  // Int8 relreplident.
  switch (m.replica_identity) {
    case wire::kReplicaIdentityDefault:
    case wire::kReplicaIdentityNothing:
    case wire::kReplicaIdentityFull:
    case wire::kReplicaIdentityIndex:
      break;
    default:
      if (r.ok()) r.Fail("unknown replica identity " + DescribeByte(m.replica_identity));
  }
  const uint16_t column_count = r.Int16("column count");  // Int16 number of columns.
  // Check before reserving so a forged count cannot make us allocate much.
  if (r.Require(column_count * kMinRelationColumnBytes, "columns")) {
    m.columns.reserve(column_count);
    for (int i = 0; i < column_count && r.ok(); ++i) m.columns.push_back(ReadRelationColumn(r, i));
  }
  return Finish(r, std::move(m));
}

absl::StatusOr<Message> DecodeType(WireReader r) {
  Type m;
  m.type_oid = r.Int32("type OID");           // Int32 type OID.
  m.namespace_name = r.CString("namespace");  // String namespace, empty for pg_catalog.
  m.type_name = r.CString("type name");       // String type name.
  return Finish(r, m);
}

absl::StatusOr<Message> DecodeInsert(WireReader r) {
  Insert m;
  m.relation = RelationId{r.Int32("relation OID")};  // Int32 relation OID.
  const uint8_t marker = r.Byte("tuple marker");     // Byte1('N') new tuple follows.
  if (r.ok() && marker != wire::kNewTuple) {
    r.Fail(fmt::format("unknown tuple marker {}, expected 'N'", DescribeByte(marker)));
  }
  m.new_tuple = ReadTupleData(r, "new");
  return Finish(r, m);
}

absl::StatusOr<Message> DecodeUpdate(WireReader r) {
  Update m;
  m.relation = RelationId{r.Int32("relation OID")};  // Int32 relation OID.
  // Optional Byte1('K') key or Byte1('O') old tuple, then Byte1('N') new tuple.
  uint8_t marker = ReadMarker(r, "'K', 'O' or 'N'");
  if (marker == wire::kKeyTuple || marker == wire::kOldTuple) {
    m.has_old = true;
    m.old_is_key = marker == wire::kKeyTuple;
    m.old_tuple = ReadTupleData(r, m.old_is_key ? "key" : "old");
    marker = r.Byte("new tuple marker");
    if (r.ok() && marker != wire::kNewTuple) {
      r.Fail(fmt::format("unknown new tuple marker {}, expected 'N'", DescribeByte(marker)));
    }
  }
  m.new_tuple = ReadTupleData(r, "new");
  return Finish(r, m);
}

absl::StatusOr<Message> DecodeDelete(WireReader r) {
  Delete m;
  m.relation = RelationId{r.Int32("relation OID")};  // Int32 relation OID.
  // Byte1('K') key or Byte1('O') old tuple; Postgres never sends 'N' here.
  const uint8_t marker = ReadMarker(r, "'K' or 'O'");
  if (r.ok() && marker == wire::kNewTuple) {
    r.Fail("unknown tuple marker 0x4e ('N'), expected 'K' or 'O'");
  }
  m.old_is_key = marker == wire::kKeyTuple;
  m.old_tuple = ReadTupleData(r, m.old_is_key ? "key" : "old");
  return Finish(r, m);
}

absl::StatusOr<Message> DecodeTruncate(WireReader r) {
  Truncate m;
  const size_t count = r.Length("relation count");  // Int32 number of relations.
  m.options = r.Byte("options");                    // Int8 option bits.
  constexpr uint8_t kKnownOptions = wire::kTruncateCascade | wire::kTruncateRestartIdentity;
  if (r.ok() && (m.options & ~kKnownOptions) != 0) {
    r.Fail("unknown options " + DescribeByte(m.options));
  }
  // Check before reserving so a forged count cannot make us allocate much.
  if (r.Require(count * 4, "relation OIDs")) {
    m.relations.reserve(count);
    for (size_t i = 0; i < count; ++i) m.relations.push_back(RelationId{r.Int32("relation OID")});
  }
  return Finish(r, std::move(m));
}

absl::StatusOr<Message> DecodeLogicalMessage(WireReader r) {
  LogicalMessage m;
  const uint8_t flags = r.Byte("flags");  // Int8 flags; bit 0 = transactional.
  if (r.ok() && (flags & ~wire::kMessageFlagTransactional) != 0) {
    r.Fail("unknown flags " + DescribeByte(flags));
  }
  m.transactional = (flags & wire::kMessageFlagTransactional) != 0;
  m.lsn = Lsn(r.Int64("lsn"));                                 // Int64 LSN of the message.
  m.prefix = r.CString("prefix");                              // String prefix.
  m.content = r.Bytes(r.Length("content length"), "content");  // Int32 length, Byte(n) content.
  return Finish(r, m);
}

// Tags that only appear with streaming (proto >= 2) or two-phase (proto >= 3) enabled.
const char* UnsupportedTagName(char tag) {
  switch (tag) {
    case 'S':
      return "Stream Start";
    case 'E':
      return "Stream Stop";
    case 'c':
      return "Stream Commit";
    case 'A':
      return "Stream Abort";
    case 'b':
      return "Begin Prepare";
    case 'P':
      return "Prepare";
    case 'K':
      return "Commit Prepared";
    case 'r':
      return "Rollback Prepared";
    case 'p':
      return "Stream Prepare";
    default:
      return nullptr;
  }
}

absl::Status UnknownTag(char tag) {
  const auto byte = static_cast<uint8_t>(tag);
  if (const char* name = UnsupportedTagName(tag)) {
    return absl::DataLossError(fmt::format(
        "pgoutput: {} message (tag {}) is not protocol v1; start the slot with proto_version '1' "
        "and streaming/two_phase off",
        name, DescribeByte(byte)));
  }
  return absl::DataLossError("pgoutput: unknown message tag " + DescribeByte(byte));
}

}  // namespace

absl::StatusOr<Message> Decode(std::string_view bytes) {
  if (bytes.empty()) return absl::DataLossError("pgoutput: empty message (no tag byte)");
  const char tag = bytes.front();
  const std::string_view body = bytes.substr(1);
  switch (tag) {
    case wire::kBegin:
      return DecodeBegin(WireReader(body, "Begin"));
    case wire::kCommit:
      return DecodeCommit(WireReader(body, "Commit"));
    case wire::kOrigin:
      return DecodeOrigin(WireReader(body, "Origin"));
    case wire::kRelation:
      return DecodeRelation(WireReader(body, "Relation"));
    case wire::kType:
      return DecodeType(WireReader(body, "Type"));
    case wire::kInsert:
      return DecodeInsert(WireReader(body, "Insert"));
    case wire::kUpdate:
      return DecodeUpdate(WireReader(body, "Update"));
    case wire::kDelete:
      return DecodeDelete(WireReader(body, "Delete"));
    case wire::kTruncate:
      return DecodeTruncate(WireReader(body, "Truncate"));
    case wire::kMessage:
      return DecodeLogicalMessage(WireReader(body, "Message"));
    default:
      return UnknownTag(tag);
  }
}

// The decoder validated the tuple (ReadTupleData), so these reads need no bounds checks.
ColumnValue TupleData::Reader::Next() {
  --left_;
  const auto kind = static_cast<ColumnKind>(rest_.front());
  rest_.remove_prefix(1);
  switch (kind) {
    case ColumnKind::kNull:
    case ColumnKind::kUnchangedToast:
      return ColumnValue{kind, {}};
    case ColumnKind::kText:
    case ColumnKind::kBinary:
      break;
  }
  const auto length = internal::LoadBigEndian<uint32_t>(rest_.data());
  const std::string_view data = rest_.substr(4, length);
  rest_.remove_prefix(4 + length);
  return ColumnValue{kind, data};
}

}  // namespace outboxd::pgoutput
