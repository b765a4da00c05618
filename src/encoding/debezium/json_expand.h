#pragma once
// table.expand.json.payload as Debezium 3.6.1's Outbox Event Router does it
// (EventRouterDelegate + JsonSchemaData, table.json.payload.null.behavior = ignore): a string
// payload starting with '{' or '[' is parsed as Jackson's readTree does, a Connect schema is
// inferred from it, and the value becomes a struct that JsonConverter writes. Pure.

#include <cstdint>
#include <string>
#include <string_view>

namespace outboxd::encoding {
namespace expand {
struct Scratch;  // encoding/debezium/json_expand_model.h
}  // namespace expand

enum class ExpandOutcome {
  // Debezium leaves the payload a string (logs "JSON expansion failed"): it does not start with
  // '{' or '[', Jackson cannot parse it, or an array in it has no single member schema.
  kUnexpanded,
  // A struct: ExpandedPayload::schema_json and value_json hold JsonConverter's output.
  kExpanded,
  // "[]" (an empty array at the top): the value stays the string but with a null schema, which
  // JsonConverter writes as {"schema":null,"payload":"[]"}.
  kNullSchema,
  // Debezium's task fails on this row (the schema was replaced but the value does not fit it:
  // a non-empty top-level array, an integer beyond 64 bits, array members or merged struct
  // fields of different types); `reason` says which.
  kFails,
};

struct ExpandedPayload {
  ExpandOutcome outcome = ExpandOutcome::kUnexpanded;
  std::string_view schema_json;  // kExpanded: the struct's schema as JsonConverter writes it.
  std::string_view
      value_json;           // kExpanded: the struct's value (every schema field, null if absent).
  std::string_view reason;  // kFails.
};

// Expands the payload text `text`; `name` is the payload column's name (the top struct's schema
// name, nested structs "<name>.<field>"). The views stay valid until the next call on this
// thread (the buffers are thread-local and reused: no allocation once warm).
ExpandedPayload ExpandJsonPayload(std::string_view text, std::string_view name);

// The parse and schema inference of ExpandJsonPayload alone, for converters other than
// JsonConverter (encoding/avro/avro_expand.h). kExpanded means a struct schema was inferred:
// whether the value fits it (Struct.put's validation) is for the writer to check, as WriteValue
// does.
struct InferredPayload {
  ExpandOutcome outcome = ExpandOutcome::kUnexpanded;
  std::string_view reason;                 // kFails.
  const expand::Scratch* model = nullptr;  // kExpanded: node 0 is the document.
  int32_t schema = -1;                     // kExpanded: the document's struct, in `model`.
};

// Same views' lifetime as ExpandJsonPayload: until the next call of either on this thread.
InferredPayload InferJsonPayload(std::string_view text, std::string_view name);

// Appends `value` as Jackson writes a double (Java's Double.toString with the shortest digits:
// "1.0", "0.001", "1.0E7", "1.5E-4"; NaN and infinities as the strings "NaN", "Infinity").
void AppendJavaDouble(double value, std::string& out);

}  // namespace outboxd::encoding
