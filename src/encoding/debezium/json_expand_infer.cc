// Debezium 3.6.1's JSON payload expansion, its parse and schema inference (the writing is
// json_expand_write.cc), reproduced step by step:
// - EventRouterDelegate.parseJsonPayload: only text starting with '{' or '[' is parsed
//   (ObjectMapper.readTree: strict JSON, trailing content ignored, a repeated key keeps its
//   first position and its last value); an exception leaves the payload a string.
// - JsonSchemaData.toConnectSchema: string, boolean, int32 (fits an int), int64 (fits a long),
//   float64 (any other number), null and empty arrays dropped (their field is left out),
//   objects as optional structs named by their path ("payload.address"), arrays by their
//   first non-null member (all members of one node type and one number type, else the payload
//   stays a string), arrays of objects as the merge of their members' structs.
// - JsonSchemaData.toConnectData, then Struct.put's validation: a value that does not fit the
//   schema fails Debezium's task (the schema was already replaced), e.g. an integer beyond 64
//   bits (a BigDecimal in a float64 field).
// - JsonConverter: every field of a struct is written, null when the document lacks it; doubles
//   as Java's Double.toString.

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <vector>

#include "encoding/debezium/json_expand.h"
#include "encoding/debezium/json_expand_model.h"

namespace outboxd::encoding {

bool expand::SameSchema(const Scratch& s, int32_t a, int32_t b, bool any_optional) {
  const Schema& x = s.schemas[static_cast<size_t>(a)];
  const Schema& y = s.schemas[static_cast<size_t>(b)];
  if (x.type != y.type || x.has_name != y.has_name) return false;
  if (!any_optional && x.optional != y.optional) return false;
  if (x.has_name && s.SchemaName(x) != s.SchemaName(y)) return false;
  if (x.type == SchemaType::kArray) return SameSchema(s, x.items, y.items);
  if (x.type != SchemaType::kStruct) return true;
  int32_t f = x.first_field;
  int32_t g = y.first_field;
  for (; f != kNone && g != kNone;
       f = s.fields[static_cast<size_t>(f)].next, g = s.fields[static_cast<size_t>(g)].next) {
    const Field& left = s.fields[static_cast<size_t>(f)];
    const Field& right = s.fields[static_cast<size_t>(g)];
    if (s.FieldName(left) != s.FieldName(right) || !SameSchema(s, left.schema, right.schema)) {
      return false;
    }
  }
  return f == kNone && g == kNone;
}

expand::Scratch& expand::ThreadScratch() {
  thread_local Scratch scratch;
  return scratch;
}

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

// A schema name (Java's String key of toConnectSchema) in Scratch::names; !has = null.
struct Key {
  bool has = false;
  uint32_t offset = 0;
  uint32_t length = 0;
};

class Inferrer {
 public:
  explicit Inferrer(Scratch& scratch) : s_(scratch) {}

  // toConnectSchema(key, node): kNone for a dropped field (null, empty array); false when
  // Debezium throws (the payload then stays a string).
  bool Infer(Key key, int32_t node_index, int32_t& out) {
    const Node node = s_.nodes[static_cast<size_t>(node_index)];
    switch (node.type) {
      case NodeType::kString:
        out = NewSchema(SchemaType::kString);
        return true;
      case NodeType::kBool:
        out = NewSchema(SchemaType::kBoolean);
        return true;
      case NodeType::kNumber:
        out = NewSchema(PrimitiveType(node));
        return true;
      case NodeType::kNull:
        out = kNone;
        return true;
      case NodeType::kArray:
        return InferArray(key, node, out);
      case NodeType::kObject:
        return InferObject(key, node, out);
    }
    return false;
  }

 private:
  int32_t NewSchema(SchemaType type) {
    s_.schemas.push_back(Schema{});
    s_.schemas.back().type = type;
    return static_cast<int32_t>(s_.schemas.size() - 1);
  }

  Schema& At(int32_t index) { return s_.schemas[static_cast<size_t>(index)]; }

  bool HasField(int32_t schema, std::string_view name) const {
    for (int32_t f = s_.schemas[static_cast<size_t>(schema)].first_field; f != kNone;
         f = s_.fields[static_cast<size_t>(f)].next) {
      if (s_.FieldName(s_.fields[static_cast<size_t>(f)]) == name) return true;
    }
    return false;
  }

  void AddField(int32_t schema, int32_t& last, uint32_t name_offset, uint32_t name_length,
                int32_t field_schema) {
    s_.fields.push_back(Field{name_offset, name_length, field_schema, kNone});
    const auto index = static_cast<int32_t>(s_.fields.size() - 1);
    if (last == kNone) {
      At(schema).first_field = index;
    } else {
      s_.fields[static_cast<size_t>(last)].next = index;
    }
    last = index;
  }

  bool InferObject(Key key, const Node& node, int32_t& out) {
    const int32_t schema = NewSchema(SchemaType::kStruct);
    At(schema).has_name = key.has;
    At(schema).name_offset = key.offset;
    At(schema).name_length = key.length;
    const bool blank =
        !key.has || IsBlank(std::string_view(s_.names).substr(key.offset, key.length));
    int32_t last = kNone;
    for (int32_t c = node.first_child; c != kNone; c = s_.nodes[static_cast<size_t>(c)].next) {
      const Node& child = s_.nodes[static_cast<size_t>(c)];
      // fieldKey = (key blank ? "" : key + ".") + fieldName, appended to `names`; reserved
      // first, so the copy of the key (in `names` itself) does not move under it.
      Key field_key{true, static_cast<uint32_t>(s_.names.size()), 0};
      s_.names.reserve(s_.names.size() + key.length + 1 + child.key_length);
      if (!blank) s_.names.append(s_.names.data() + key.offset, key.length).push_back('.');
      s_.names.append(s_.Key(child));
      field_key.length = static_cast<uint32_t>(s_.names.size() - field_key.offset);
      int32_t field_schema = kNone;
      if (!Infer(field_key, c, field_schema)) return false;
      if (field_schema != kNone && !HasField(schema, s_.Key(child))) {
        AddField(schema, last, child.key_offset, child.key_length, field_schema);
      }
    }
    out = schema;
    return true;
  }

  static bool IsBlank(std::string_view text) {
    for (char c : text) {
      if (static_cast<unsigned char>(c) > ' ') return false;
    }
    return true;
  }

  // getFirstArrayElement: the first non-null member, after checking that every non-null member
  // has its node type (and, for numbers, its schema). False when they differ.
  bool FirstMember(const Node& array, int32_t& first) {
    first = kNone;
    for (int32_t c = array.first_child; c != kNone; c = s_.nodes[static_cast<size_t>(c)].next) {
      const Node& element = s_.nodes[static_cast<size_t>(c)];
      if (element.type == NodeType::kNull) continue;
      if (first == kNone) first = c;
      const Node& ref = s_.nodes[static_cast<size_t>(first)];
      if (element.type != ref.type) return false;
      if (ref.type == NodeType::kNumber && PrimitiveType(ref) != PrimitiveType(element)) {
        return false;
      }
    }
    return true;
  }

  bool InferArray(Key key, const Node& array, int32_t& out) {
    if (array.first_child == kNone) {  // Empty: no schema, the field is dropped.
      out = kNone;
      return true;
    }
    int32_t sample = kNone;
    if (!FirstMember(array, sample)) return false;
    int32_t items = kNone;
    if (sample != kNone && s_.nodes[static_cast<size_t>(sample)].type == NodeType::kObject) {
      // Every object member's struct, merged: fields of the first, then new ones of the
      // next. Debezium merges the distinct structs in HashSet order, which depends on
      // identity hash codes (Schema.Type is an enum): with one shape the result is the same;
      // with several, Debezium's field order changes from one JVM run to the next. Its merge
      // (SchemaUtil.copySchemaBasics) drops "optional": with several shapes the items struct
      // is required, and a null member fails the task.
      int32_t first = kNone;
      bool several = false;
      for (int32_t c = array.first_child; c != kNone; c = s_.nodes[static_cast<size_t>(c)].next) {
        if (s_.nodes[static_cast<size_t>(c)].type != NodeType::kObject) continue;
        int32_t element = kNone;
        if (!Infer(key, c, element)) return false;
        if (first == kNone) first = element;
        several = several || !expand::SameSchema(s_, first, element);
        items = items == kNone ? element : Merge(items, element);
      }
      At(items).optional = !several;
    } else {
      if (sample == kNone) return false;  // Only nulls: "unrecognized member schema".
      if (!Infer(Key{}, sample, items)) return false;
      if (items == kNone) return false;  // E.g. an empty array first.
    }
    out = NewSchema(SchemaType::kArray);
    At(out).items = items;
    return true;
  }

  int32_t Merge(int32_t left, int32_t right) {
    const int32_t merged = NewSchema(SchemaType::kStruct);
    At(merged).has_name = At(left).has_name;
    At(merged).name_offset = At(left).name_offset;
    At(merged).name_length = At(left).name_length;
    int32_t last = kNone;
    for (int32_t side : {left, right}) {
      for (int32_t f = At(side).first_field; f != kNone;
           f = s_.fields[static_cast<size_t>(f)].next) {
        const Field field = s_.fields[static_cast<size_t>(f)];
        if (HasField(merged, s_.FieldName(field))) continue;  // The left one is kept.
        AddField(merged, last, field.name_offset, field.name_length, field.schema);
      }
    }
    return merged;
  }

  Scratch& s_;
};

}  // namespace

InferredPayload InferJsonPayload(std::string_view text, std::string_view name) {
  InferredPayload result;
  // parseJsonPayload: no trimming; an empty string throws (charAt(0)) and is kept too.
  if (text.empty() || (text.front() != '{' && text.front() != '[')) return result;
  Scratch& s = expand::ThreadScratch();
  s.nodes.clear();
  s.strings.clear();
  s.schemas.clear();
  s.fields.clear();
  s.names.clear();
  s.lone_surrogate = false;
  if (!expand::ParseDocument(text, s)) return result;
  s.names.append(name);
  int32_t schema = kNone;
  if (!Inferrer(s).Infer(Key{true, 0, static_cast<uint32_t>(name.size())}, 0, schema)) {
    return result;
  }
  if (s.nodes[0].type == NodeType::kArray) {
    if (schema == kNone) {
      result.outcome = ExpandOutcome::kNullSchema;
    } else {
      result.outcome = ExpandOutcome::kFails;
      result.reason =
          "a JSON array payload cannot be expanded (Debezium's task fails: an array schema "
          "for a string value)";
    }
    return result;
  }
  result.outcome = ExpandOutcome::kExpanded;
  result.model = &s;
  result.schema = schema;
  return result;
}

}  // namespace outboxd::encoding
