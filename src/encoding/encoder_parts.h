#pragma once
// Internal to outboxd_encoding: what every format shares (the converted key, placed headers and
// trace-context headers), and the concrete encoders CreateEncoder chooses from.

#include <memory>
#include <string>

#include "config/config.h"
#include "encoding/avro/schema_ids.h"
#include "outbox/encoder.h"

namespace outboxd::encoding::internal {

// Sets out.key: the aggregate id through cfg.key_converter (Connect's key.converter), in every
// format. Uses out.owned_key and out.scratch.
void EncodeKey(const config::OutboxConfig& cfg, const outbox::MappedRow& row,
               outbox::OutboxEvent& out);

// Appends one header per "header" placement, in config order: alias = the column's text, or a
// null value for NULL.
void AppendPlacementHeaders(const config::OutboxConfig& cfg, const outbox::MappedRow& row,
                            outbox::OutboxEvent& out);

// Appends traceparent, and tracestate when not NULL, for a row with a valid traceparent: so
// rows without one, and raw records of tables without the columns, are unchanged.
void AppendTraceHeaders(const outbox::MappedRow& row, outbox::OutboxEvent& out);

// The raw format's envelope struct name: "<logical_name>.<schema>.<table>.<routing value>.Value"
// (Debezium names it after the table's first row), cached in row.layout.
const std::string& EnvelopeSchemaName(const config::OutboxConfig& cfg,
                                      const outbox::MappedRow& row);

// The avro converters (encoding/avro/avro_schema.h, encoding/avro/avro_datum.h) in the raw format:
// the key (the aggregate id), and the value (the payload, or the envelope struct when `envelope`)
// in the Confluent wire format with the id `ids` gives out.topic's subject. A NULL key or value is
// a null record key or value, as Confluent's serializer writes null. Errors as SchemaIds::IdFor,
// and InvalidArgument for a row the schema cannot hold.
absl::Status EncodeAvroKey(SchemaIds& ids, const outbox::MappedRow& row, outbox::OutboxEvent& out);
absl::Status EncodeAvroValue(const config::OutboxConfig& cfg, SchemaIds& ids, bool envelope,
                             const outbox::MappedRow& row, outbox::OutboxEvent& out);

// The concrete encoders; each keeps a reference to `cfg`, which must outlive it. `schema_ids`
// (the avro converters' registry; null when none is used) too.
std::unique_ptr<const outbox::Encoder> NewRawEncoder(const config::OutboxConfig& cfg,
                                                     std::string run_id, SchemaIds* schema_ids);
std::unique_ptr<const outbox::Encoder> NewEnvelopeJsonEncoder(const config::OutboxConfig& cfg);
std::unique_ptr<const outbox::Encoder> NewEnvelopeProtobufEncoder(const config::OutboxConfig& cfg);
std::unique_ptr<const outbox::Encoder> NewCloudEventsEncoder(const config::OutboxConfig& cfg);

}  // namespace outboxd::encoding::internal
