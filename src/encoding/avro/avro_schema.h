#pragma once
// The Avro schemas Confluent's AvroConverter registers for the Connect schemas the Outbox Event
// Router gives it (AvroData.fromConnectSchema, connect.meta.data = true, as Avro's
// Schema.toString writes them), and the Confluent wire format's framing. Pure; appends to
// caller buffers.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "encoding/debezium/converter.h"

namespace outboxd::encoding {

// Confluent's wire format: magic byte 0, then the schema id as 4 big-endian bytes.
inline constexpr char kConfluentMagicByte = 0;
inline constexpr size_t kConfluentHeaderSize = 5;

// Appends the magic byte and `schema_id` (big-endian).
void AppendConfluentHeader(int32_t schema_id, std::string& out);

// Appends the schema of a top-level value (a record key, or a value that is the payload alone),
// e.g. "string", ["null","bytes"] or
// ["null",{"type":"string","connect.version":1,"connect.name":"io.debezium.data.Json"}]: an
// optional schema becomes a union with null first, the Connect metadata goes on the branch.
void AppendAvroSchema(const outbox::ColumnSchema& schema, std::string& out);

// The name Confluent's serializers give a non-record schema (AvroSchema.name(), for
// RecordNameStrategy): "union" for an optional one, else its Avro type ("string", "int", ...).
std::string_view AvroSchemaName(const outbox::ColumnSchema& schema);

// One field of a record (the envelope struct).
struct AvroField {
  std::string_view name;
  const outbox::ColumnSchema* schema;  // Borrowed; outlives the AppendAvroRecordSchema call.
};

// Appends the record schema of a Connect struct named `full_name` (namespace = up to the last
// '.'), e.g. {"type":"record","name":"Value","namespace":"p.public.outbox.Order","fields":[
// {"name":"payload","type":["null","string"],"default":null}],"connect.name":"p.public...."}.
// An optional field's default is null, as AvroData writes it.
void AppendAvroRecordSchema(std::string_view full_name, std::span<const AvroField> fields,
                            std::string& out);

}  // namespace outboxd::encoding
