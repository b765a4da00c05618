#pragma once
// Typed pgoutput messages (protocol version 1, as PostgreSQL 15 sends them).
//
// Every std::string_view points into the buffer that was decoded; a message is valid only as
// long as that buffer is. Decoding never allocates except for Relation's column list and
// Truncate's relation list, which are rare.

#include <cstdint>
#include <string_view>
#include <variant>
#include <vector>

#include "common/types.h"

namespace outboxd::pgoutput {

struct Begin {
  Lsn final_lsn;               // LSN of the commit record.
  int64_t commit_time_us = 0;  // µs since 2000-01-01 UTC.
  Xid xid;
};

struct Commit {
  uint8_t flags = 0;  // Always 0 in PG15.
  Lsn commit_lsn;
  Lsn end_lsn;  // The position to confirm once the transaction is safe.
  int64_t commit_time_us = 0;
};

struct Origin {
  Lsn origin_lsn;
  std::string_view name;
};

struct RelationColumn {
  uint8_t flags = 0;  // wire::kColumnFlagKey when part of the replica identity.
  std::string_view name;
  uint32_t type_oid = 0;
  int32_t type_modifier = 0;
};

struct Relation {
  RelationId id;
  std::string_view namespace_name;  // Empty means pg_catalog.
  std::string_view relation_name;
  uint8_t replica_identity = 0;  // 'd', 'n', 'f' or 'i'.
  std::vector<RelationColumn> columns;
};

struct Type {
  uint32_t type_oid = 0;
  std::string_view namespace_name;
  std::string_view type_name;
};

enum class ColumnKind : char {
  kNull = 'n',
  kUnchangedToast = 'u',
  kText = 't',
  kBinary = 'b',
};

struct ColumnValue {
  ColumnKind kind = ColumnKind::kNull;
  std::string_view data;  // Empty unless kText or kBinary.
};

// A validated TupleData. Columns are read in order with TupleData::Reader; the decoder has
// already checked that `raw` holds exactly `column_count` well-formed columns.
struct TupleData {
  uint16_t column_count = 0;
  std::string_view raw;  // The column entries, after the Int16 count.

  class Reader {
   public:
    explicit Reader(const TupleData& tuple) : rest_(tuple.raw), left_(tuple.column_count) {}
    bool Done() const { return left_ == 0; }
    // Returns the next column. Requires !Done().
    ColumnValue Next();

   private:
    std::string_view rest_;
    uint16_t left_;
  };
};

struct Insert {
  RelationId relation;
  TupleData new_tuple;
};

struct Update {
  RelationId relation;
  bool has_old = false;     // An 'O' (old tuple) or 'K' (key) tuple was sent.
  bool old_is_key = false;  // The old tuple holds key columns only ('K').
  TupleData old_tuple;
  TupleData new_tuple;
};

struct Delete {
  RelationId relation;
  bool old_is_key = false;
  TupleData old_tuple;
};

struct Truncate {
  uint8_t options = 0;  // wire::kTruncateCascade | wire::kTruncateRestartIdentity.
  std::vector<RelationId> relations;
};

struct LogicalMessage {
  bool transactional = false;
  Lsn lsn;
  std::string_view prefix;
  std::string_view content;
};

using Message = std::variant<Begin, Commit, Origin, Relation, Type, Insert, Update, Delete,
                             Truncate, LogicalMessage>;

}  // namespace outboxd::pgoutput
