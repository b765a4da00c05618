// The expanded payload as Confluent's AvroConverter writes it:
// - AvroData.fromConnectSchema: every inferred schema is optional (but the merged struct of
//   objects of different shapes, an array's items), so each becomes ["null", T] and each
//   record field gets "default": null; a struct is a record named by its
//   Connect name split at the last '.' (namespace, name) with a "connect.name" property, an
//   unnamed struct (array members inside arrays) "ConnectDefault", "ConnectDefault2", ... in
//   namespace io.confluent.connect.avro; int32/int64/float64 are int/long/double. A struct
//   equal to one converted before is that same Avro record (schemaMap), and a named struct
//   whose name was seen is the first one of that name (cycleReferences).
// - Avro's Schema.toString: a record already written is written as its name (qualified unless
//   its namespace is the enclosing record's); "namespace" only where it differs from the
//   enclosing one ("" for none inside one); record and field names checked by validateName.
// - BinaryEncoder: zigzag varints, length-prefixed UTF-8 (Java's encoder writes '?' for an
//   unpaired surrogate), little-endian doubles, arrays as one block then 0, union branch index.

#include "encoding/avro/avro_expand.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "encoding/debezium/converter.h"
#include "encoding/debezium/json_expand_model.h"
#include "fmt/format.h"

namespace outboxd::encoding {
namespace {

using expand::Field;
using expand::kNone;
using expand::Node;
using expand::NodeType;
using expand::NumberType;
using expand::SameSchema;
using expand::Schema;
using expand::SchemaType;
using expand::Scratch;

constexpr std::string_view kConnectNamespace = "io.confluent.connect.avro";

// Schema.validateName for ASCII; a byte >= 0x80 is left to the registry (see the header).
bool IsAvroName(std::string_view name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    const bool letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c >= 0x80;
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

std::string_view PrimitiveName(SchemaType type) {
  switch (type) {
    case SchemaType::kString:
      return "string";
    case SchemaType::kBoolean:
      return "boolean";
    case SchemaType::kInt32:
      return "int";
    case SchemaType::kInt64:
      return "long";
    case SchemaType::kFloat64:
      return "double";
    case SchemaType::kArray:
    case SchemaType::kStruct:
      break;
  }
  return "";
}

// One record converted so far: its Connect schema and Avro name (views of Scratch::names or
// constants, so warm rows allocate nothing).
struct Record {
  int32_t schema = kNone;
  std::string_view name;
  std::string_view space;  // Empty: none.
  std::string_view full;   // A named struct's Connect name: space.name.
  int default_index = 0;   // ConnectDefault's number (written from 2 on); 0 for a named struct.
};

// Appends `record`'s name, qualified by its namespace when `qualified`, as a JSON string.
void AppendRecordName(const Record& record, bool qualified, std::string& out) {
  if (record.default_index == 0) {
    AppendJsonString(qualified && !record.space.empty() ? record.full : record.name, out);
    return;
  }
  out.push_back('"');
  if (qualified) out.append(record.space).push_back('.');
  out.append(record.name);
  if (record.default_index > 1) fmt::format_to(std::back_inserter(out), "{}", record.default_index);
  out.push_back('"');
}

class SchemaWriter {
 public:
  SchemaWriter(const Scratch& s, std::vector<Record>& records, std::string& out)
      : s_(s), records_(records), out_(out) {
    records_.clear();
  }

  // An optional schema: ["null", T]; a required one (a merged struct): T.
  absl::Status Optional(int32_t index) {
    if (!s_.schemas[static_cast<size_t>(index)].optional) return Base(index);
    out_.append(R"(["null",)");
    if (auto status = Base(index); !status.ok()) return status;
    out_.push_back(']');
    return absl::OkStatus();
  }

 private:
  absl::Status Base(int32_t index) {
    const Schema& schema = s_.schemas[static_cast<size_t>(index)];
    if (schema.type == SchemaType::kStruct) return RecordSchema(index);
    if (schema.type == SchemaType::kArray) {
      out_.append(R"({"type":"array","items":)");
      if (auto status = Optional(schema.items); !status.ok()) return status;
      out_.push_back('}');
      return absl::OkStatus();
    }
    out_.push_back('"');
    out_.append(PrimitiveName(schema.type)).push_back('"');
    return absl::OkStatus();
  }

  // The record converted before that `index` is (by name, else by equality); null if none.
  const Record* Earlier(int32_t index, absl::Status& status) const {
    const Schema& schema = s_.schemas[static_cast<size_t>(index)];
    for (const Record& r : records_) {
      const Schema& other = s_.schemas[static_cast<size_t>(r.schema)];
      if (schema.has_name && other.has_name && s_.SchemaName(schema) == s_.SchemaName(other)) {
        // AvroData converts the non-optional copy: the struct's own optional does not count.
        if (SameSchema(s_, index, r.schema, /*any_optional=*/true)) return &r;
        status = absl::InvalidArgumentError(
            fmt::format("two JSON objects whose inferred structs are both named \"{}\" but differ "
                        "(AvroData converts the second in the first one's record)",
                        s_.SchemaName(schema)));
        return nullptr;
      }
      if (!schema.has_name && !other.has_name &&
          SameSchema(s_, index, r.schema, /*any_optional=*/true)) {
        return &r;
      }
    }
    return nullptr;
  }

  // "fields":[...], each optional with a null default.
  absl::Status Fields(const Schema& schema) {
    out_.append(R"(,"fields":[)");
    for (int32_t f = schema.first_field; f != kNone; f = s_.fields[static_cast<size_t>(f)].next) {
      const Field& field = s_.fields[static_cast<size_t>(f)];
      if (!IsAvroName(s_.FieldName(field))) {
        return absl::InvalidArgumentError(
            fmt::format("the JSON key \"{}\" is not an Avro field name (Debezium's AvroConverter "
                        "fails: Avro names are letters, digits and _, not starting with a digit)",
                        s_.FieldName(field)));
      }
      if (f != schema.first_field) out_.push_back(',');
      out_.append(R"({"name":)");
      AppendJsonString(s_.FieldName(field), out_);
      out_.append(R"(,"type":)");
      if (auto st = Optional(field.schema); !st.ok()) return st;
      out_.append(R"(,"default":null})");
    }
    out_.push_back(']');
    return absl::OkStatus();
  }

  absl::Status RecordSchema(int32_t index) {
    absl::Status status;
    if (const Record* earlier = Earlier(index, status)) {  // Schema.writeNameRef.
      AppendRecordName(*earlier, !earlier->space.empty() && earlier->space != space_, out_);
      return absl::OkStatus();
    }
    if (!status.ok()) return status;
    const Schema& schema = s_.schemas[static_cast<size_t>(index)];
    Record record;
    record.schema = index;
    if (schema.has_name) {
      record.full = s_.SchemaName(schema);
      const size_t dot = record.full.rfind('.');
      record.name = record.full.substr(dot == std::string_view::npos ? 0 : dot + 1);
      if (dot != std::string_view::npos) record.space = record.full.substr(0, dot);
      if (!IsAvroName(record.name)) {
        return absl::InvalidArgumentError(fmt::format(
            "the JSON object \"{}\" has a name that is not an Avro name (Debezium's "
            "AvroConverter fails: Avro names are letters, digits and _, not starting with a digit)",
            record.full));
      }
    } else {
      record.name = "ConnectDefault";
      record.space = kConnectNamespace;
      record.default_index = ++defaults_;
    }
    records_.push_back(record);
    out_.append(R"({"type":"record","name":)");
    AppendRecordName(record, /*qualified=*/false, out_);
    if (record.space != space_) {
      out_.append(R"(,"namespace":)");
      AppendJsonString(record.space, out_);
    }
    const std::string_view saved = space_;
    space_ = record.space;
    if (auto st = Fields(schema); !st.ok()) return st;
    if (schema.has_name) {
      out_.append(R"(,"connect.name":)");
      AppendJsonString(record.full, out_);
    }
    out_.push_back('}');
    space_ = saved;
    return absl::OkStatus();
  }

  const Scratch& s_;
  std::vector<Record>& records_;
  std::string& out_;
  std::string_view space_;  // The enclosing record's namespace (Names.space); empty: none.
  int defaults_ = 0;        // Unnamed structs converted so far (getNameOrDefault's index).
};

void AppendVarint(int64_t value, std::string& out) {
  auto zigzag = (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
  while (zigzag >= 0x80) {
    out.push_back(static_cast<char>((zigzag & 0x7F) | 0x80));
    zigzag >>= 7;
  }
  out.push_back(static_cast<char>(zigzag));
}

// A string as Java's Avro encoder writes it: an unpaired surrogate (which the parser kept as
// its 3-byte ED A0..BF xx form) becomes '?', as String.getBytes(UTF_8) does.
void AppendAvroString(std::string_view text, bool lone_surrogates, std::string& out) {
  if (!lone_surrogates) {
    AppendVarint(static_cast<int64_t>(text.size()), out);
    out.append(text);
    return;
  }
  auto surrogate_at = [&](size_t i) {
    return i + 2 < text.size() && static_cast<unsigned char>(text[i]) == 0xED &&
           static_cast<unsigned char>(text[i + 1]) >= 0xA0;
  };
  size_t length = text.size();
  for (size_t i = 0; i < text.size(); ++i) {
    if (surrogate_at(i)) length -= 2;
  }
  AppendVarint(static_cast<int64_t>(length), out);
  for (size_t i = 0; i < text.size(); ++i) {
    if (surrogate_at(i)) {
      out.push_back('?');
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
}

class ValueWriter {
 public:
  ValueWriter(const Scratch& s, std::string& out) : s_(s), out_(out) {}

  // A value of an optional schema: branch 0 for null or absent (kNone), else 1 and the value;
  // of a required one (a merged struct, only ever an array's items): the value, never null.
  bool Optional(int32_t node_index, int32_t schema_index, std::string_view& reason) {
    const bool null =
        node_index == kNone || s_.nodes[static_cast<size_t>(node_index)].type == NodeType::kNull;
    if (!s_.schemas[static_cast<size_t>(schema_index)].optional) {
      if (null) {
        reason = expand::kNullMemberReason;
        return false;
      }
      return Value(node_index, schema_index, reason);
    }
    if (null) {
      out_.push_back(0);
      return true;
    }
    out_.push_back(2);  // zigzag(1)
    return Value(node_index, schema_index, reason);
  }

 private:
  bool Value(int32_t node_index, int32_t schema_index, std::string_view& reason) {
    const Node& node = s_.nodes[static_cast<size_t>(node_index)];
    const Schema& schema = s_.schemas[static_cast<size_t>(schema_index)];
    switch (node.type) {
      case NodeType::kString:
        if (schema.type != SchemaType::kString) break;
        AppendAvroString(s_.String(node.text_offset, node.text_length), s_.lone_surrogate, out_);
        return true;
      case NodeType::kBool:
        if (schema.type != SchemaType::kBoolean) break;
        out_.push_back(node.truth ? 1 : 0);
        return true;
      case NodeType::kNumber:
        return Number(node, schema, reason);
      case NodeType::kArray:
        if (schema.type != SchemaType::kArray) break;
        return Array(node, schema, reason);
      case NodeType::kObject:
        if (schema.type != SchemaType::kStruct) break;
        return Struct(node, schema, reason);
      case NodeType::kNull:
        break;
    }
    reason = expand::kMismatchReason;
    return false;
  }

  bool Number(const Node& node, const Schema& schema, std::string_view& reason) {
    if (node.number == NumberType::kBig) {
      reason = expand::kBigIntegerReason;
      return false;
    }
    if (schema.type != expand::PrimitiveType(node)) {
      reason = expand::kMismatchReason;
      return false;
    }
    if (node.number != NumberType::kDouble) {
      AppendVarint(node.integer, out_);
      return true;
    }
    uint64_t bits = 0;
    std::memcpy(&bits, &node.real, sizeof bits);
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((bits >> (8 * i)) & 0xFF));
    return true;
  }

  bool Array(const Node& node, const Schema& schema, std::string_view& reason) {
    int64_t count = 0;
    for (int32_t c = node.first_child; c != kNone; c = s_.nodes[static_cast<size_t>(c)].next) {
      ++count;
    }
    if (count > 0) AppendVarint(count, out_);
    for (int32_t c = node.first_child; c != kNone; c = s_.nodes[static_cast<size_t>(c)].next) {
      if (!Optional(c, schema.items, reason)) return false;
    }
    out_.push_back(0);  // The end of the blocks.
    return true;
  }

  // Every schema field in order, from the document's member of that name (null if absent).
  bool Struct(const Node& node, const Schema& schema, std::string_view& reason) {
    int32_t cursor = node.first_child;  // Fields mostly follow the document's order.
    for (int32_t f = schema.first_field; f != kNone; f = s_.fields[static_cast<size_t>(f)].next) {
      const Field& field = s_.fields[static_cast<size_t>(f)];
      const std::string_view name = s_.FieldName(field);
      int32_t member = kNone;
      for (int32_t c = cursor; member == kNone && c != kNone;
           c = s_.nodes[static_cast<size_t>(c)].next) {
        if (s_.Key(s_.nodes[static_cast<size_t>(c)]) == name) member = c;
      }
      for (int32_t c = node.first_child; member == kNone && c != cursor && c != kNone;
           c = s_.nodes[static_cast<size_t>(c)].next) {
        if (s_.Key(s_.nodes[static_cast<size_t>(c)]) == name) member = c;
      }
      if (member != kNone) cursor = s_.nodes[static_cast<size_t>(member)].next;
      if (!Optional(member, field.schema, reason)) return false;
    }
    return true;
  }

  const Scratch& s_;
  std::string& out_;
};

}  // namespace

absl::Status AppendExpandedAvroSchema(const InferredPayload& inferred, std::string& out) {
  thread_local std::vector<Record> records;  // Reused: no allocation once warm.
  return SchemaWriter(*inferred.model, records, out).Optional(inferred.schema);
}

absl::Status AppendExpandedAvroValue(const InferredPayload& inferred, std::string& out) {
  std::string_view reason;
  if (!ValueWriter(*inferred.model, out).Optional(0, inferred.schema, reason)) {
    return absl::InvalidArgumentError(std::string(reason));
  }
  return absl::OkStatus();
}

std::string_view AnythingAvroSchema() {
  // AvroData.ANYTHING_SCHEMA as Schema.toString writes it.
  return R"({"type":"record","name":"Anything","namespace":"io.confluent.connect.avro",)"
         R"("fields":[{"name":"boolean","type":["null","boolean"],"default":null},)"
         R"({"name":"bytes","type":["null","bytes"],"default":null},)"
         R"({"name":"double","type":["null","double"],"default":null},)"
         R"({"name":"float","type":["null","float"],"default":null},)"
         R"({"name":"int","type":["null","int"],"default":null},)"
         R"({"name":"long","type":["null","long"],"default":null},)"
         R"({"name":"string","type":["null","string"],"default":null},)"
         R"({"name":"array","type":["null",{"type":"array","items":"Anything"}],"default":null},)"
         R"({"name":"map","type":["null",{"type":"array","items":{"type":"record",)"
         R"("name":"MapEntry","fields":[{"name":"key","type":"Anything"},)"
         R"({"name":"value","type":"Anything"}]}}],"default":null}]})";
}

void AppendAnythingString(std::string_view text, std::string& out) {
  out.append(6, '\0');  // boolean, bytes, double, float, int, long: null.
  out.push_back(2);     // string: branch 1.
  AppendVarint(static_cast<int64_t>(text.size()), out);
  out.append(text);
  out.append(2, '\0');  // array, map: null.
}

}  // namespace outboxd::encoding
