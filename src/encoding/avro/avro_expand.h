#pragma once
// table.expand.json.payload under Confluent's AvroConverter: the Avro schema AvroData derives
// (connect.meta.data on, enhanced schema support off) from the Connect schema Debezium 3.6.1
// infers for a payload (encoding/debezium/json_expand.h), as Avro's Schema.toString writes it, and
// the payload's Avro binary encoding in that schema. Pure; appends to caller buffers.

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "encoding/debezium/json_expand.h"

namespace outboxd::encoding {

// Appends the schema of `inferred` (outcome kExpanded), e.g.
// ["null",{"type":"record","name":"payload","fields":[{"name":"id","type":["null","int"],
// "default":null}],"connect.name":"payload"}]. InvalidArgument naming the cause where AvroData
// or Avro would throw (Debezium's task fails): a JSON key that is not an Avro name, or two
// different structs inferred under one name. Names with non-ASCII letters are left to the
// registry's Avro parser, which applies Java's letter classes.
absl::Status AppendExpandedAvroSchema(const InferredPayload& inferred, std::string& out);

// Appends the Avro binary encoding of the document in `inferred` (outcome kExpanded), the
// top-level union's branch first. InvalidArgument with ExpandJsonPayload's reason when the value
// does not fit the inferred schema.
absl::Status AppendExpandedAvroValue(const InferredPayload& inferred, std::string& out);

// The outcome kNullSchema ("[]" stays a string with a null Connect schema): AvroData writes a
// schemaless value in its io.confluent.connect.avro.Anything record, the string in its "string"
// field. The schema's text and full name, and the value's encoding.
std::string_view AnythingAvroSchema();
inline constexpr std::string_view kAnythingAvroName = "io.confluent.connect.avro.Anything";
void AppendAnythingString(std::string_view text, std::string& out);

}  // namespace outboxd::encoding
