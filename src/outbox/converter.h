#pragma once
// Kafka Connect's converters, byte for byte: how StringConverter and JsonConverter
// (schemas.enable false/true, Jackson's output) write the values Debezium's Event Router gives
// them, for the Postgres column types an outbox table uses. Pure; appends to caller buffers.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "config/config.h"

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

// Appends `text` as a JSON string the way Jackson writes it: quotes, \" \\ \b \f \n \r \t,
// other control characters as \u00XX, characters outside the BMP as a \uXXXX surrogate pair
// (uppercase hex), all else as raw UTF-8. `text` must be valid UTF-8 (Postgres text is).
void AppendJsonString(std::string_view text, std::string& out);

// Appends standard base64 with padding (java.util.Base64, which Jackson uses for bytes).
void AppendBase64(std::string_view bytes, std::string& out);

// Appends the schema object JsonConverter writes, e.g.
// {"type":"string","optional":true,"name":"io.debezium.data.Json","version":1}; with
// `field_name`, a struct field's schema ending in "field":"<name>".
void AppendSchema(const ColumnSchema& schema, std::string& out,
                  std::optional<std::string_view> field_name = std::nullopt);

// Appends one column value (NULL = nullopt) as JsonConverter's payload: a JSON string, number,
// boolean, base64 string (bytea, decoded from \x hex into `scratch`) or null. Returns false
// when bytea text is malformed.
bool AppendJsonValue(const ColumnSchema& schema, std::optional<std::string_view> text,
                     std::string& scratch, std::string& out);

}  // namespace outboxd::outbox
