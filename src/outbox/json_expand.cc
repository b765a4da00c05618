// Debezium 3.6.1's JSON payload expansion, reproduced step by step:
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

#include "outbox/json_expand.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <vector>

#include "outbox/converter.h"
#include "outbox/json_expand_model.h"

namespace outboxd::outbox {

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

constexpr size_t kMaxNumberLength = 1000;  // Jackson's StreamReadConstraints.maxNumberLength.
constexpr int kMaxDepth = 1000;            // Jackson's StreamReadConstraints.maxNestingDepth.

void AppendUtf8(uint32_t code, std::string& out) {
  if (code < 0x80) {
    out.push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code >> 6)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else if (code < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (code >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (code >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  }
}

// Jackson's strict JSON grammar over `text`; stops after the root value (readTree ignores what
// follows it). False on any syntax error.
class Parser {
 public:
  Parser(std::string_view text, Scratch& scratch) : text_(text), s_(scratch) {}

  bool ParseRoot() { return ParseValue(0) != kNone; }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool Literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    // Jackson reads an identifier to its end: "truex" is an error.
    return pos_ >= text_.size() || !std::isalnum(static_cast<unsigned char>(text_[pos_]));
  }

  int32_t NewNode(NodeType type) {
    s_.nodes.push_back(Node{});
    s_.nodes.back().type = type;
    return static_cast<int32_t>(s_.nodes.size() - 1);
  }

  int32_t ParseValue(int depth) {
    if (depth > kMaxDepth) return kNone;
    SkipSpace();
    if (pos_ >= text_.size()) return kNone;
    switch (text_[pos_]) {
      case '{':
        return ParseObject(depth);
      case '[':
        return ParseArray(depth);
      case '"': {
        uint32_t offset = 0;
        uint32_t length = 0;
        if (!ParseString(offset, length)) return kNone;
        const int32_t n = NewNode(NodeType::kString);
        s_.nodes[static_cast<size_t>(n)].text_offset = offset;
        s_.nodes[static_cast<size_t>(n)].text_length = length;
        return n;
      }
      case 't':
      case 'f': {
        const bool truth = text_[pos_] == 't';
        if (!Literal(truth ? "true" : "false")) return kNone;
        const int32_t n = NewNode(NodeType::kBool);
        s_.nodes[static_cast<size_t>(n)].truth = truth;
        return n;
      }
      case 'n':
        return Literal("null") ? NewNode(NodeType::kNull) : kNone;
      default:
        return ParseNumber();
    }
  }

  // Appends a child; a repeated object key replaces the earlier member in place (Jackson's
  // ObjectNode.replace on its LinkedHashMap: first position, last value).
  void AddChild(int32_t parent, int32_t child, bool object) {
    Node& p = s_.nodes[static_cast<size_t>(parent)];
    if (object) {
      const std::string_view key = s_.Key(s_.nodes[static_cast<size_t>(child)]);
      int32_t previous = kNone;
      for (int32_t c = p.first_child; c != kNone; c = s_.nodes[static_cast<size_t>(c)].next) {
        if (s_.Key(s_.nodes[static_cast<size_t>(c)]) == key) {
          s_.nodes[static_cast<size_t>(child)].next = s_.nodes[static_cast<size_t>(c)].next;
          if (previous == kNone) {
            p.first_child = child;
          } else {
            s_.nodes[static_cast<size_t>(previous)].next = child;
          }
          if (p.last_child == c) p.last_child = child;
          return;
        }
        previous = c;
      }
    }
    if (p.last_child == kNone) {
      p.first_child = child;
    } else {
      s_.nodes[static_cast<size_t>(p.last_child)].next = child;
    }
    p.last_child = child;
  }

  int32_t ParseObject(int depth) {
    ++pos_;  // '{'
    const int32_t object = NewNode(NodeType::kObject);
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      return object;
    }
    while (true) {
      SkipSpace();
      if (pos_ >= text_.size() || text_[pos_] != '"') return kNone;
      uint32_t key_offset = 0;
      uint32_t key_length = 0;
      if (!ParseString(key_offset, key_length)) return kNone;
      SkipSpace();
      if (pos_ >= text_.size() || text_[pos_] != ':') return kNone;
      ++pos_;
      const int32_t value = ParseValue(depth + 1);
      if (value == kNone) return kNone;
      s_.nodes[static_cast<size_t>(value)].key_offset = key_offset;
      s_.nodes[static_cast<size_t>(value)].key_length = key_length;
      AddChild(object, value, /*object=*/true);
      SkipSpace();
      if (pos_ >= text_.size()) return kNone;
      if (text_[pos_] == '}') {
        ++pos_;
        return object;
      }
      if (text_[pos_] != ',') return kNone;
      ++pos_;
    }
  }

  int32_t ParseArray(int depth) {
    ++pos_;  // '['
    const int32_t array = NewNode(NodeType::kArray);
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      return array;
    }
    while (true) {
      const int32_t value = ParseValue(depth + 1);
      if (value == kNone) return kNone;
      AddChild(array, value, /*object=*/false);
      SkipSpace();
      if (pos_ >= text_.size()) return kNone;
      if (text_[pos_] == ']') {
        ++pos_;
        return array;
      }
      if (text_[pos_] != ',') return kNone;
      ++pos_;
    }
  }

  bool Hex4(uint32_t& unit) {
    if (pos_ + 4 > text_.size()) return false;
    unit = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = text_[pos_++];
      unit <<= 4;
      if (c >= '0' && c <= '9') {
        unit |= static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        unit |= static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        unit |= static_cast<uint32_t>(c - 'A' + 10);
      } else {
        return false;
      }
    }
    return true;
  }

  // A string token, decoded to UTF-8 in s_.strings.
  bool ParseString(uint32_t& offset, uint32_t& length) {
    ++pos_;  // '"'
    std::string& out = s_.strings;
    offset = static_cast<uint32_t>(out.size());
    while (true) {
      if (pos_ >= text_.size()) return false;
      const char c = text_[pos_++];
      if (c == '"') break;
      if (static_cast<unsigned char>(c) < 0x20) return false;  // Unescaped control character.
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= text_.size()) return false;
      const char e = text_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out.push_back(e);
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u': {
          uint32_t unit = 0;
          if (!Hex4(unit)) return false;
          if (unit >= 0xD800 && unit <= 0xDBFF && text_.substr(pos_, 2) == "\\u") {
            const size_t at = pos_;
            pos_ += 2;
            uint32_t low = 0;
            if (!Hex4(low)) return false;
            if (low >= 0xDC00 && low <= 0xDFFF) {
              AppendUtf8(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00), out);
              break;
            }
            pos_ = at;  // Not a pair: the high half stands alone.
          }
          if (unit >= 0xD800 && unit <= 0xDFFF) s_.lone_surrogate = true;
          AppendUtf8(unit, out);
          break;
        }
        default:
          return false;
      }
    }
    length = static_cast<uint32_t>(out.size() - offset);
    return true;
  }

  int32_t ParseNumber() {
    const size_t start = pos_;
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    auto digits = [&] {
      const size_t from = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      return pos_ - from;
    };
    const size_t int_start = pos_;
    const size_t int_digits = digits();
    if (int_digits == 0) return kNone;
    if (int_digits > 1 && text_[int_start] == '0') return kNone;  // Leading zeros.
    bool real = false;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      if (digits() == 0) return kNone;
      real = true;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (digits() == 0) return kNone;
      real = true;
    }
    const std::string_view token = text_.substr(start, pos_ - start);
    if (token.size() > kMaxNumberLength) return kNone;
    const int32_t n = NewNode(NodeType::kNumber);
    Node& node = s_.nodes[static_cast<size_t>(n)];
    if (real) {
      node.number = NumberType::kDouble;
      // Correctly rounded, as Double.parseDouble; out of range is +-inf or 0 there, which strtod
      // gives too (from_chars leaves the value unset).
      const auto [end, error] =
          std::from_chars(token.data(), token.data() + token.size(), node.real);
      if (error == std::errc::result_out_of_range) {
        char buffer[kMaxNumberLength + 1];
        token.copy(buffer, token.size());
        buffer[token.size()] = '\0';
        node.real = std::strtod(buffer, nullptr);
      }
      return n;
    }
    int64_t value = 0;
    const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (error != std::errc() || end != token.data() + token.size()) {
      node.number = NumberType::kBig;
      return n;
    }
    node.integer = value;
    node.number =
        value >= std::numeric_limits<int32_t>::min() && value <= std::numeric_limits<int32_t>::max()
            ? NumberType::kInt
            : NumberType::kLong;
    return n;
  }

  std::string_view text_;
  Scratch& s_;
  size_t pos_ = 0;
};

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

Scratch& ThreadScratch() {
  thread_local Scratch scratch;
  return scratch;
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

InferredPayload InferJsonPayload(std::string_view text, std::string_view name) {
  InferredPayload result;
  // parseJsonPayload: no trimming; an empty string throws (charAt(0)) and is kept too.
  if (text.empty() || (text.front() != '{' && text.front() != '[')) return result;
  Scratch& s = ThreadScratch();
  s.nodes.clear();
  s.strings.clear();
  s.schemas.clear();
  s.fields.clear();
  s.names.clear();
  s.lone_surrogate = false;
  if (!Parser(text, s).ParseRoot()) return result;
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

ExpandedPayload ExpandJsonPayload(std::string_view text, std::string_view name) {
  const InferredPayload inferred = InferJsonPayload(text, name);
  ExpandedPayload result;
  result.outcome = inferred.outcome;
  result.reason = inferred.reason;
  if (inferred.outcome != ExpandOutcome::kExpanded) return result;
  Scratch& s = ThreadScratch();
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

}  // namespace outboxd::outbox
