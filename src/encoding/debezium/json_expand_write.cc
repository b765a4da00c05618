// Debezium 3.6.1's JSON payload expansion, its writing: JsonConverter writes every field of a
// struct, null when the document lacks it, and doubles as Java's Double.toString. The parse and
// schema inference are json_expand_infer.cc's.

#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>

#include "encoding/debezium/converter.h"
#include "encoding/debezium/json_expand.h"
#include "encoding/debezium/json_expand_model.h"

namespace outboxd::encoding {
namespace {

using expand::Field;
using expand::kNone;
using expand::Node;
using expand::NodeType;
using expand::NumberType;
using expand::PrimitiveType;
using expand::Schema;
using expand::SchemaType;
using expand::Scratch;

std::string_view TypeName(SchemaType type) {
  switch (type) {
    case SchemaType::kString:
      return "string";
    case SchemaType::kBoolean:
      return "boolean";
    case SchemaType::kInt32:
      return "int32";
    case SchemaType::kInt64:
      return "int64";
    case SchemaType::kFloat64:
      return "double";  // JsonConverter's name for Connect's FLOAT64 (JsonSchema.DOUBLE_SCHEMA).
    case SchemaType::kArray:
      return "array";
    case SchemaType::kStruct:
      return "struct";
  }
  return "";
}

// JsonConverter.asJsonSchema: type (its own names: FLOAT64 is "double"), fields/items,
// optional, name; a field adds "field" last.
void WriteSchema(const Scratch& s, int32_t index, std::optional<std::string_view> field,
                 std::string& out) {
  const Schema& schema = s.schemas[static_cast<size_t>(index)];
  out.append(R"({"type":")").append(TypeName(schema.type)).push_back('"');
  if (schema.type == SchemaType::kArray) {
    out.append(R"(,"items":)");
    WriteSchema(s, schema.items, std::nullopt, out);
  } else if (schema.type == SchemaType::kStruct) {
    out.append(R"(,"fields":[)");
    for (int32_t f = schema.first_field; f != kNone; f = s.fields[static_cast<size_t>(f)].next) {
      if (f != schema.first_field) out.push_back(',');
      WriteSchema(s, s.fields[static_cast<size_t>(f)].schema,
                  s.FieldName(s.fields[static_cast<size_t>(f)]), out);
    }
    out.push_back(']');
  }
  out.append(schema.optional ? R"(,"optional":true)" : R"(,"optional":false)");
  if (schema.has_name) {
    out.append(R"(,"name":)");
    AppendJsonString(std::string_view(s.names).substr(schema.name_offset, schema.name_length), out);
  }
  if (field) {
    out.append(R"(,"field":)");
    AppendJsonString(*field, out);
  }
  out.push_back('}');
}

// toConnectData + Struct validation + JsonConverter's value. False (with `reason`) where
// Struct.put would throw a DataException.
bool WriteValue(const Scratch& s, int32_t node_index, int32_t schema_index, std::string& out,
                std::string_view& reason) {
  const Node& node = s.nodes[static_cast<size_t>(node_index)];
  const Schema& schema = s.schemas[static_cast<size_t>(schema_index)];
  if (node.type == NodeType::kNull) {
    if (!schema.optional) {
      reason = expand::kNullMemberReason;
      return false;
    }
    out.append("null");
    return true;
  }
  switch (node.type) {
    case NodeType::kString:
      if (schema.type != SchemaType::kString) break;
      AppendJsonString(s.String(node.text_offset, node.text_length), out);
      return true;
    case NodeType::kBool:
      if (schema.type != SchemaType::kBoolean) break;
      out.append(node.truth ? "true" : "false");
      return true;
    case NodeType::kNumber:
      if (node.number == NumberType::kBig) {
        reason = expand::kBigIntegerReason;
        return false;
      }
      if (schema.type != PrimitiveType(node)) break;
      if (node.number == NumberType::kDouble) {
        if (!std::isfinite(node.real)) out.push_back('"');
        AppendJavaDouble(node.real, out);
        if (!std::isfinite(node.real)) out.push_back('"');
      } else {
        char buffer[24];
        const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, node.integer);
        out.append(buffer, end);
      }
      return true;
    case NodeType::kArray: {
      if (schema.type != SchemaType::kArray) break;
      out.push_back('[');
      for (int32_t c = node.first_child; c != kNone; c = s.nodes[static_cast<size_t>(c)].next) {
        if (c != node.first_child) out.push_back(',');
        if (!WriteValue(s, c, schema.items, out, reason)) return false;
      }
      out.push_back(']');
      return true;
    }
    case NodeType::kObject: {
      if (schema.type != SchemaType::kStruct) break;
      out.push_back('{');
      // The schema's fields mostly follow the document's order: look at the next member first.
      int32_t cursor = node.first_child;
      for (int32_t f = schema.first_field; f != kNone; f = s.fields[static_cast<size_t>(f)].next) {
        const Field& field = s.fields[static_cast<size_t>(f)];
        const std::string_view name = s.FieldName(field);
        if (f != schema.first_field) out.push_back(',');
        AppendJsonString(name, out);
        out.push_back(':');
        int32_t member = kNone;
        for (int32_t c = cursor; c != kNone; c = s.nodes[static_cast<size_t>(c)].next) {
          if (s.Key(s.nodes[static_cast<size_t>(c)]) == name) member = c;
          if (member != kNone) break;
        }
        for (int32_t c = node.first_child; member == kNone && c != cursor && c != kNone;
             c = s.nodes[static_cast<size_t>(c)].next) {
          if (s.Key(s.nodes[static_cast<size_t>(c)]) == name) member = c;
        }
        if (member == kNone) {
          out.append("null");
          continue;
        }
        cursor = s.nodes[static_cast<size_t>(member)].next;
        if (!WriteValue(s, member, field.schema, out, reason)) return false;
      }
      out.push_back('}');
      return true;
    }
    case NodeType::kNull:
      break;
  }
  reason = expand::kMismatchReason;
  return false;
}

}  // namespace

void AppendJavaDouble(double value, std::string& out) {
  if (std::isnan(value)) {
    out.append("NaN");
    return;
  }
  if (std::isinf(value)) {
    out.append(value > 0 ? "Infinity" : "-Infinity");
    return;
  }
  if (value == 0) {
    out.append(std::signbit(value) ? "-0.0" : "0.0");
    return;
  }
  // The shortest digits that round-trip (Double.toString since JDK 19), e.g. "-1.2345e+08".
  char buffer[32];
  const auto [end, error] =
      std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  std::string_view text(buffer, static_cast<size_t>(end - buffer));
  if (text.front() == '-') {
    out.push_back('-');
    text.remove_prefix(1);
  }
  const size_t e = text.find('e');
  int exponent = 0;
  std::from_chars(text.data() + e + (text[e + 1] == '+' ? 2 : 1), text.data() + text.size(),
                  exponent);
  char digits[24];
  size_t count = 0;
  for (char c : text.substr(0, e)) {
    if (c != '.') digits[count++] = c;
  }
  const std::string_view d(digits, count);
  if (exponent >= -3 && exponent < 7) {  // Plain notation for 10^-3 <= |value| < 10^7.
    if (exponent < 0) {
      out.append("0.").append(static_cast<size_t>(-exponent - 1), '0').append(d);
      return;
    }
    const auto integer_digits = static_cast<size_t>(exponent) + 1;
    if (d.size() <= integer_digits) {
      out.append(d).append(integer_digits - d.size(), '0').append(".0");
    } else {
      out.append(d.substr(0, integer_digits)).push_back('.');
      out.append(d.substr(integer_digits));
    }
    return;
  }
  out.push_back(d[0]);
  out.push_back('.');
  out.append(d.size() > 1 ? d.substr(1) : std::string_view("0"));
  out.push_back('E');
  char exp_buffer[8];
  const auto [exp_end, exp_error] =
      std::to_chars(exp_buffer, exp_buffer + sizeof exp_buffer, exponent);
  out.append(exp_buffer, exp_end);
}

ExpandedPayload ExpandJsonPayload(std::string_view text, std::string_view name) {
  const InferredPayload inferred = InferJsonPayload(text, name);
  ExpandedPayload result;
  result.outcome = inferred.outcome;
  result.reason = inferred.reason;
  if (inferred.outcome != ExpandOutcome::kExpanded) return result;
  Scratch& s = expand::ThreadScratch();
  s.schema_json.clear();
  s.value_json.clear();
  std::string_view reason;
  if (!WriteValue(s, 0, inferred.schema, s.value_json, reason)) {
    result.outcome = ExpandOutcome::kFails;
    result.reason = reason;
    return result;
  }
  if (s.lone_surrogate) {
    result.outcome = ExpandOutcome::kFails;
    result.reason =
        "a \\u escape of an unpaired surrogate (Debezium's task fails: Jackson cannot write it)";
    return result;
  }
  WriteSchema(s, inferred.schema, std::nullopt, s.schema_json);
  result.schema_json = s.schema_json;
  result.value_json = s.value_json;
  return result;
}

}  // namespace outboxd::encoding
