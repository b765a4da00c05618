#pragma once
// What a relation layout records of a column's Postgres type for the converters: the Connect
// schema Debezium derives from it (default decimal/time/binary handling). Pure data; the
// converters that write it live in encoding/debezium.

#include <cstdint>
#include <optional>
#include <string_view>

namespace outboxd::outbox {

// The Connect schema Debezium derives from a column's Postgres type (default
// decimal/time/binary handling), for the json_with_schema wrapper and value rendering.
struct ColumnSchema {
  std::string_view type;  // Connect type: "string", "bytes", "int16", "int32", "int64", ...
  std::string_view name;  // Logical name, e.g. "io.debezium.data.Json"; empty for none.
  int version = 0;        // 0 = no version.
  bool optional = true;   // The column may be NULL.
  bool bytea = false;     // The pgoutput text is bytea's \x hex form.
  bool boolean = false;   // The pgoutput text is "t" or "f".
  bool number = false;    // The pgoutput text is a JSON number as it stands (integers).
};

// The schema for pg_type OID `type_oid`; nullopt for a type outboxd cannot convert the way
// Debezium does (numeric, floats, dates and times, arrays, ...).
std::optional<ColumnSchema> SchemaOfType(uint32_t type_oid, bool not_null);

}  // namespace outboxd::outbox
