// Prints one JSON line per sample: the Avro schema outboxd writes for a Connect shape, the
// Confluent-framed bytes it encodes for a value (hex), and the value a decoder must read back.
// tests/avro/fastavro_check.py decodes each with fastavro (an independent implementation).

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "encoding/avro/avro_datum.h"
#include "encoding/avro/avro_expand.h"
#include "encoding/avro/avro_schema.h"
#include "encoding/debezium/converter.h"
#include "encoding/debezium/json_expand.h"

namespace outboxd::outbox {

using encoding::AnythingAvroSchema;
using encoding::AppendAnythingString;
using encoding::AppendAvroRecordSchema;
using encoding::AppendAvroSchema;
using encoding::AppendConfluentHeader;
using encoding::AppendExpandedAvroSchema;
using encoding::AppendExpandedAvroValue;
using encoding::AppendJsonString;
using encoding::AvroDatum;
using encoding::AvroField;
using encoding::ExpandOutcome;
using encoding::InferJsonPayload;
using encoding::InferredPayload;
namespace {

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const char c : bytes) {
    out.push_back(kDigits[(static_cast<unsigned char>(c) >> 4) & 0xF]);
    out.push_back(kDigits[static_cast<unsigned char>(c) & 0xF]);
  }
  return out;
}

// `payload`: the text an expanded sample was inferred from (tests/avro/AvroDataPeer.java reads it).
void PrintLine(std::string_view name, std::string_view schema, int32_t id, std::string_view framed,
               std::string_view expected, std::optional<std::string_view> payload = std::nullopt) {
  std::string line = R"({"name":)";
  AppendJsonString(name, line);
  if (payload) {
    line.append(R"(,"payload":)");
    AppendJsonString(*payload, line);
  }
  line.append(R"(,"schema":)").append(schema);
  line.append(R"(,"id":)").append(std::to_string(id));
  line.append(R"(,"framed":")").append(Hex(framed));
  line.append(R"(","expected":)").append(expected).append("}\n");
  std::fputs(line.c_str(), stdout);
}

void Print(std::string_view name, AvroDatum& datum, int32_t id, std::string_view expected) {
  std::string framed;
  if (auto s = datum.AppendFramed(id, framed); !s.ok()) {
    std::fprintf(stderr, "%s: %s\n", std::string(name).c_str(), s.ToString().c_str());
    std::exit(1);
  }
  PrintLine(name, datum.schema_json(), id, framed, expected);
}

void Must(const absl::Status& s) {
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    std::exit(1);
  }
}

// A top-level column value: `expected` is the decoded value as JSON (bytes as a list of ints).
void Single(std::string_view name, const ColumnSchema& schema, std::optional<std::string_view> text,
            std::string_view expected) {
  std::string json;
  AppendAvroSchema(schema, json);
  auto datum = AvroDatum::Create(json);
  Must(datum.status());
  Must((*datum)->Set(schema, text));
  Print(name, **datum, 7, expected);
}

// An expanded payload (table.expand.json.payload) as the avro encoder writes it.
void Expanded(std::string_view name, std::string_view payload, std::string_view expected) {
  const InferredPayload inferred = InferJsonPayload(payload, "payload");
  std::string schema;
  std::string framed;
  AppendConfluentHeader(9, framed);
  if (inferred.outcome == ExpandOutcome::kNullSchema) {
    schema = AnythingAvroSchema();
    AppendAnythingString(payload, framed);
  } else {
    if (inferred.outcome != ExpandOutcome::kExpanded) {
      std::fprintf(stderr, "%s: not expanded\n", std::string(name).c_str());
      std::exit(1);
    }
    Must(AppendExpandedAvroSchema(inferred, schema));
    Must(AppendExpandedAvroValue(inferred, framed));
  }
  PrintLine(name, schema, 9, framed, expected, payload);
}

void ExpandedSamples() {
  Expanded("expanded scalars", R"({"s":"x","b":true,"i":-1,"l":3000000000,"d":0.5,"n":null})",
           R"({"s":"x","b":true,"i":-1,"l":3000000000,"d":0.5})");
  Expanded("expanded number widths",
           R"({"a":2147483647,"b":-2147483649,"e":9223372036854775807,"g":1e2,"inf":1e400})",
           R"({"a":2147483647,"b":-2147483649,"e":9223372036854775807,"g":100.0,)"
           R"("inf":Infinity})");
  Expanded("expanded empty object", "{}", "{}");
  Expanded("expanded nested objects", R"({"a":{"b":{"c":"x"},"n":null},"z":{}})",
           R"({"a":{"b":{"c":"x"}},"z":{}})");
  Expanded("expanded arrays of primitives", R"({"a":[null,1,2],"s":["x"],"n":[[1],[2,3]]})",
           R"({"a":[null,1,2],"s":["x"],"n":[[1],[2,3]]})");
  Expanded("expanded arrays of structs",
           R"({"items":[{"id":1,"tags":[]},{"id":2,"name":"b","tags":["t"]}]})",
           R"({"items":[{"id":1,"tags":[],"name":null},{"id":2,"tags":["t"],"name":"b"}]})");
  Expanded("expanded arrays of one struct shape", R"({"items":[{"id":1},null,{"id":2}]})",
           R"({"items":[{"id":1},null,{"id":2}]})");
  Expanded("expanded unnamed structs",
           R"({"m":[[{"k":{"v":1}}]],"o":[[{"x":"y"}]],"p":[[{"k":{"v":2}}]]})",
           R"({"m":[[{"k":{"v":1}}]],"o":[[{"x":"y"}]],"p":[[{"k":{"v":2}}]]})");
  Expanded("expanded strings", R"({"s":"caf\u00e9 \ud83d\ude00 \ud800!"})",
           R"({"s":"caf\u00e9 \ud83d\ude00 ?!"})");
  Expanded("expanded top-level []", "[]",
           R"({"boolean":null,"bytes":null,"double":null,"float":null,"int":null,"long":null,)"
           R"("string":"[]","array":null,"map":null})");
}

int Run() {
  const ColumnSchema jsonb = *SchemaOfType(3802, false);
  const ColumnSchema jsonb_required = *SchemaOfType(3802, true);
  ColumnSchema bytes = *SchemaOfType(17, false);
  bytes.bytea = false;  // A payload arrives decoded.
  const ColumnSchema text = *SchemaOfType(25, true);
  const ColumnSchema uuid = *SchemaOfType(2950, true);
  const ColumnSchema int2 = *SchemaOfType(21, false);
  const ColumnSchema int8 = *SchemaOfType(20, true);
  const ColumnSchema boolean = *SchemaOfType(16, false);
  const ColumnSchema bytea_hex = *SchemaOfType(17, false);

  Single("jsonb payload", jsonb, R"({"a":1,"é":"\u00e9 ✓ 😀"})",
         R"("{\"a\":1,\"é\":\"\\u00e9 ✓ 😀\"}")");
  Single("jsonb payload NULL", jsonb, std::nullopt, "null");
  Single("jsonb NOT NULL payload", jsonb_required, "[]", R"("[]")");
  Single("empty text key", text, "", R"("")");
  Single("uuid key", uuid, "0b5e4a2c-8a53-4c6e-9d6c-1f1f2b4b3c3d",
         R"("0b5e4a2c-8a53-4c6e-9d6c-1f1f2b4b3c3d")");
  Single("bytea payload", bytes, std::string_view("\x00\x01\xff\x80", 4), "[0,1,255,128]");
  Single("bytea payload empty", bytes, "", "[]");
  Single("int16", int2, "-32768", "-32768");
  Single("int64", int8, "9223372036854775807", "9223372036854775807");
  Single("boolean", boolean, "t", "true");

  const AvroField fields[] = {{"payload", &jsonb}, {"eventType", &text}, {"n", &int2},
                              {"flag", &boolean},  {"blob", &bytea_hex}, {"big", &int8}};
  std::string json;
  AppendAvroRecordSchema("dbserver1.public.outbox.Order.Value", fields, json);
  auto datum = AvroDatum::Create(json);
  Must(datum.status());
  for (int row = 0; row < 2; ++row) {  // The same value reused: the second row overwrites all.
    AvroDatum& d = **datum;
    Must(d.SetField(0, jsonb, row == 0 ? std::optional<std::string_view>("{}") : std::nullopt));
    Must(d.SetField(1, text, row == 0 ? "OrderCreated" : "OrderShipped"));
    Must(d.SetField(2, int2, row == 0 ? std::optional<std::string_view>("12") : std::nullopt));
    Must(d.SetField(3, boolean, row == 0 ? "f" : "t"));
    Must(d.SetField(4, bytea_hex, row == 0 ? "\\x00ff" : "\\x"));
    Must(d.SetField(5, int8, row == 0 ? "-1" : "4294967296"));
  }
  Print("envelope record (second row)", **datum, 0x01020304,
        R"({"payload":null,"eventType":"OrderShipped","n":null,"flag":true,"blob":[],)"
        R"("big":4294967296})");
  ExpandedSamples();
  return 0;
}

}  // namespace
}  // namespace outboxd::outbox

int main() { return outboxd::outbox::Run(); }
