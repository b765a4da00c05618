#include "support/pgoutput_encoder.h"

#include "pgoutput/wire.h"

namespace outboxd::testing {

namespace wire = pgoutput::wire;

WireWriter& WireWriter::Byte(uint8_t v) {
  out_.push_back(static_cast<char>(v));
  return *this;
}
WireWriter& WireWriter::Int16(uint16_t v) { return Byte(v >> 8).Byte(v & 0xFF); }
WireWriter& WireWriter::Int32(uint32_t v) { return Int16(v >> 16).Int16(v & 0xFFFF); }
WireWriter& WireWriter::Int64(uint64_t v) {
  return Int32(static_cast<uint32_t>(v >> 32)).Int32(static_cast<uint32_t>(v));
}
WireWriter& WireWriter::CString(std::string_view s) { return Raw(s).Byte(0); }
WireWriter& WireWriter::Raw(std::string_view s) {
  out_.append(s);
  return *this;
}

std::string EncodeTupleData(const std::vector<TestColumn>& columns) {
  WireWriter w;
  w.Int16(static_cast<uint16_t>(columns.size()));
  for (const TestColumn& c : columns) {
    char kind = c.kind != 0 ? c.kind : (c.text ? wire::kColumnText : wire::kColumnNull);
    w.Byte(static_cast<uint8_t>(kind));
    if (kind == wire::kColumnText || kind == wire::kColumnBinary) {
      const std::string& v = c.text.value();
      w.Int32(static_cast<uint32_t>(v.size())).Raw(v);
    }
  }
  return w.Take();
}

std::string EncodeTupleData(const std::vector<std::optional<std::string>>& values) {
  std::vector<TestColumn> columns;
  for (const auto& v : values) columns.push_back(TestColumn{v});
  return EncodeTupleData(columns);
}

std::string EncodeBegin(Lsn final_lsn, int64_t commit_time_us, Xid xid) {
  return WireWriter()
      .Byte(wire::kBegin)
      .Int64(final_lsn.value())
      .Int64(static_cast<uint64_t>(commit_time_us))
      .Int32(xid.value)
      .Take();
}

std::string EncodeCommit(Lsn commit_lsn, Lsn end_lsn, int64_t commit_time_us, uint8_t flags) {
  return WireWriter()
      .Byte(wire::kCommit)
      .Byte(flags)
      .Int64(commit_lsn.value())
      .Int64(end_lsn.value())
      .Int64(static_cast<uint64_t>(commit_time_us))
      .Take();
}

std::string EncodeOrigin(Lsn origin_lsn, std::string_view name) {
  return WireWriter().Byte(wire::kOrigin).Int64(origin_lsn.value()).CString(name).Take();
}

std::string EncodeRelation(RelationId id, std::string_view nspname, std::string_view relname,
                           uint8_t replica_identity,
                           const std::vector<pgoutput::RelationColumn>& columns) {
  WireWriter w;
  w.Byte(wire::kRelation).Int32(id.value).CString(nspname).CString(relname);
  w.Byte(replica_identity).Int16(static_cast<uint16_t>(columns.size()));
  for (const auto& c : columns) {
    w.Byte(c.flags).CString(c.name).Int32(c.type_oid).Int32(static_cast<uint32_t>(c.type_modifier));
  }
  return w.Take();
}

std::string EncodeType(uint32_t oid, std::string_view nspname, std::string_view typname) {
  return WireWriter().Byte(wire::kType).Int32(oid).CString(nspname).CString(typname).Take();
}

std::string EncodeInsert(RelationId id, std::string_view tuple) {
  return WireWriter().Byte(wire::kInsert).Int32(id.value).Byte(wire::kNewTuple).Raw(tuple).Take();
}

std::string EncodeUpdate(RelationId id, char old_marker, std::string_view old_tuple,
                         std::string_view new_tuple) {
  WireWriter w;
  w.Byte(wire::kUpdate).Int32(id.value);
  if (old_marker != 0) w.Byte(static_cast<uint8_t>(old_marker)).Raw(old_tuple);
  return w.Byte(wire::kNewTuple).Raw(new_tuple).Take();
}

std::string EncodeDelete(RelationId id, char old_marker, std::string_view old_tuple) {
  return WireWriter()
      .Byte(wire::kDelete)
      .Int32(id.value)
      .Byte(static_cast<uint8_t>(old_marker))
      .Raw(old_tuple)
      .Take();
}

std::string EncodeTruncate(uint8_t options, const std::vector<RelationId>& relations) {
  WireWriter w;
  w.Byte(wire::kTruncate).Int32(static_cast<uint32_t>(relations.size())).Byte(options);
  for (RelationId r : relations) w.Int32(r.value);
  return w.Take();
}

std::string EncodeMessage(bool transactional, Lsn lsn, std::string_view prefix,
                          std::string_view content) {
  return WireWriter()
      .Byte(wire::kMessage)
      .Byte(transactional ? wire::kMessageFlagTransactional : 0)
      .Int64(lsn.value())
      .CString(prefix)
      .Int32(static_cast<uint32_t>(content.size()))
      .Raw(content)
      .Take();
}

}  // namespace outboxd::testing
