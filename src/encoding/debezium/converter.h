#pragma once
// Kafka Connect's converters, byte for byte: how StringConverter and JsonConverter
// (schemas.enable false/true, Jackson's output) write the values Debezium's Event Router gives
// them, for the Postgres column types an outbox table uses. Pure; appends to caller buffers.

#include <optional>
#include <string>
#include <string_view>

#include "outbox/column_schema.h"

namespace outboxd::encoding {

// Appends `text` as a JSON string the way Jackson writes it: quotes, \" \\ \b \f \n \r \t,
// other control characters as \u00XX, characters outside the BMP as a \uXXXX surrogate pair
// (uppercase hex), all else as raw UTF-8. `text` must be valid UTF-8 (Postgres text is).
void AppendJsonString(std::string_view text, std::string& out);

// Appends standard base64 with padding (java.util.Base64, which Jackson uses for bytes).
void AppendBase64(std::string_view bytes, std::string& out);

// Appends the schema object JsonConverter writes, e.g.
// {"type":"string","optional":true,"name":"io.debezium.data.Json","version":1}; with
// `field_name`, a struct field's schema ending in "field":"<name>".
void AppendSchema(const outbox::ColumnSchema& schema, std::string& out,
                  std::optional<std::string_view> field_name = std::nullopt);

// Appends one column value (NULL = nullopt) as JsonConverter's payload: a JSON string, number,
// boolean, base64 string (bytea, decoded from \x hex into `scratch`) or null. Returns false
// when bytea text is malformed.
bool AppendJsonValue(const outbox::ColumnSchema& schema, std::optional<std::string_view> text,
                     std::string& scratch, std::string& out);

}  // namespace outboxd::encoding
