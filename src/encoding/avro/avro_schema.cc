#include "encoding/avro/avro_schema.h"

#include "fmt/format.h"

namespace outboxd::encoding {

using outbox::ColumnSchema;

namespace {

// AvroData's Avro type for a Connect type, and its "connect.type" property for the Connect
// types Avro has no type of its own for (empty: none).
struct AvroType {
  std::string_view type;
  std::string_view connect_type;
};

AvroType AvroTypeOf(std::string_view connect_type) {
  if (connect_type == "int8") return {"int", "int8"};
  if (connect_type == "int16") return {"int", "int16"};
  if (connect_type == "int32") return {"int", ""};
  if (connect_type == "int64") return {"long", ""};
  if (connect_type == "float32") return {"float", ""};
  if (connect_type == "float64") return {"double", ""};
  return {connect_type, ""};  // string, bytes, boolean: the same word.
}

// The non-null schema with its properties in AvroData's order (connect.type from the type's
// case, then connect.version, then connect.name); a bare "type" when it has none.
void AppendBaseSchema(const ColumnSchema& schema, std::string& out) {
  const AvroType avro = AvroTypeOf(schema.type);
  if (avro.connect_type.empty() && schema.version == 0 && schema.name.empty()) {
    out.push_back('"');
    out.append(avro.type).push_back('"');
    return;
  }
  out.append(R"({"type":")").append(avro.type).push_back('"');
  if (!avro.connect_type.empty()) {
    out.append(R"(,"connect.type":")").append(avro.connect_type).push_back('"');
  }
  if (schema.version != 0) {
    fmt::format_to(std::back_inserter(out), R"(,"connect.version":{})", schema.version);
  }
  if (!schema.name.empty()) {
    out.append(R"(,"connect.name":)");
    AppendJsonString(schema.name, out);
  }
  out.push_back('}');
}

}  // namespace

void AppendConfluentHeader(int32_t schema_id, std::string& out) {
  const auto id = static_cast<uint32_t>(schema_id);
  out.push_back(kConfluentMagicByte);
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((id >> shift) & 0xFF));
}

std::string_view AvroSchemaName(const ColumnSchema& schema) {
  return schema.optional ? "union" : AvroTypeOf(schema.type).type;
}

void AppendAvroSchema(const ColumnSchema& schema, std::string& out) {
  if (!schema.optional) {
    AppendBaseSchema(schema, out);
    return;
  }
  out.append(R"(["null",)");
  AppendBaseSchema(schema, out);
  out.push_back(']');
}

void AppendAvroRecordSchema(std::string_view full_name, std::span<const AvroField> fields,
                            std::string& out) {
  const size_t dot = full_name.rfind('.');
  const std::string_view name =
      dot == std::string_view::npos ? full_name : full_name.substr(dot + 1);
  out.append(R"({"type":"record","name":)");
  AppendJsonString(name, out);
  if (dot != std::string_view::npos) {
    out.append(R"(,"namespace":)");
    AppendJsonString(full_name.substr(0, dot), out);
  }
  out.append(R"(,"fields":[)");
  bool first = true;
  for (const AvroField& field : fields) {
    if (!first) out.push_back(',');
    first = false;
    out.append(R"({"name":)");
    AppendJsonString(field.name, out);
    out.append(R"(,"type":)");
    AppendAvroSchema(*field.schema, out);
    if (field.schema->optional) out.append(R"(,"default":null)");
    out.push_back('}');
  }
  out.append(R"(],"connect.name":)");
  AppendJsonString(full_name, out);
  out.push_back('}');
}

}  // namespace outboxd::encoding
