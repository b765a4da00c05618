#pragma once
// Test-only pgoutput encoder: builds the exact bytes PostgreSQL 15 sends (protocol version 1),
// using the same wire constants as the decoder. Never linked into outboxd itself.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pgoutput/messages.h"

namespace outboxd::testing {

// Big-endian appenders, the building blocks of every message.
class WireWriter {
 public:
  WireWriter& Byte(uint8_t v);
  WireWriter& Int16(uint16_t v);
  WireWriter& Int32(uint32_t v);
  WireWriter& Int64(uint64_t v);
  WireWriter& CString(std::string_view s);  // Appends s and a terminating NUL.
  WireWriter& Raw(std::string_view s);
  std::string Take() { return std::move(out_); }
  const std::string& bytes() const { return out_; }

 private:
  std::string out_;
};

// One column of a tuple to encode: nullopt is NULL ('n'); otherwise text ('t').
struct TestColumn {
  std::optional<std::string> text;
  char kind = 0;  // 0 = derive from `text`; or wire::kColumnUnchangedToast / kColumnBinary.
};

std::string EncodeTupleData(const std::vector<TestColumn>& columns);
// Convenience: every value as text, nullopt as NULL.
std::string EncodeTupleData(const std::vector<std::optional<std::string>>& values);

std::string EncodeBegin(Lsn final_lsn, int64_t commit_time_us, Xid xid);
std::string EncodeCommit(Lsn commit_lsn, Lsn end_lsn, int64_t commit_time_us, uint8_t flags = 0);
std::string EncodeOrigin(Lsn origin_lsn, std::string_view name);
std::string EncodeRelation(RelationId id, std::string_view nspname, std::string_view relname,
                           uint8_t replica_identity,
                           const std::vector<pgoutput::RelationColumn>& columns);
std::string EncodeType(uint32_t oid, std::string_view nspname, std::string_view typname);
// `tuple` is the output of EncodeTupleData.
std::string EncodeInsert(RelationId id, std::string_view tuple);
// `old_marker` is 0 (no old tuple), wire::kKeyTuple or wire::kOldTuple.
std::string EncodeUpdate(RelationId id, char old_marker, std::string_view old_tuple,
                         std::string_view new_tuple);
std::string EncodeDelete(RelationId id, char old_marker, std::string_view old_tuple);
std::string EncodeTruncate(uint8_t options, const std::vector<RelationId>& relations);
std::string EncodeMessage(bool transactional, Lsn lsn, std::string_view prefix,
                          std::string_view content);

}  // namespace outboxd::testing
