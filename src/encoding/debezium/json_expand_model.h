#pragma once
// Internal to outboxd_encoding: the parsed payload document and the Connect schema Debezium
// 3.6.1's router infers for it (json_parse.cc and json_expand_infer.cc build them;
// JsonConverter's text is written by json_expand_write.cc, AvroConverter's by
// encoding/avro/avro_expand.cc). Indexes, not pointers, so the per-thread vectors
// can grow and be reused without allocating once warm.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace outboxd::encoding::expand {

inline constexpr int32_t kNone = -1;  // No node, schema or field (a dropped field's schema).

enum class NodeType { kObject, kArray, kString, kNumber, kBool, kNull };
// The Java object Jackson's number node becomes (IntNode, LongNode, BigIntegerNode, DoubleNode).
enum class NumberType { kInt, kLong, kBig, kDouble };

struct Node {
  NodeType type = NodeType::kNull;
  NumberType number = NumberType::kInt;
  bool truth = false;
  int64_t integer = 0;
  double real = 0;
  uint32_t text_offset = 0;  // Decoded string value, in Scratch::strings.
  uint32_t text_length = 0;
  uint32_t key_offset = 0;  // Member name when a child of an object, in Scratch::strings.
  uint32_t key_length = 0;
  int32_t first_child = kNone;
  int32_t last_child = kNone;
  int32_t next = kNone;
};

enum class SchemaType { kString, kBoolean, kInt32, kInt64, kFloat64, kArray, kStruct };

struct Schema {
  SchemaType type = SchemaType::kString;
  bool optional = true;  // Every inferred schema but the merged struct of differing objects.
  bool has_name = false;
  uint32_t name_offset = 0;  // In Scratch::names.
  uint32_t name_length = 0;
  int32_t items = kNone;        // kArray.
  int32_t first_field = kNone;  // kStruct: into Scratch::fields.
};

struct Field {
  uint32_t name_offset = 0;  // In Scratch::strings (a document key).
  uint32_t name_length = 0;
  int32_t schema = kNone;
  int32_t next = kNone;
};

// Per-thread buffers, cleared per payload; capacity is kept, so a warm thread allocates nothing.
struct Scratch {
  std::vector<Node> nodes;
  std::string strings;
  std::vector<Schema> schemas;
  std::vector<Field> fields;
  std::string names;
  std::string schema_json;
  std::string value_json;
  bool lone_surrogate = false;

  std::string_view String(uint32_t offset, uint32_t length) const {
    return std::string_view(strings).substr(offset, length);
  }
  std::string_view Key(const Node& n) const { return String(n.key_offset, n.key_length); }
  std::string_view FieldName(const Field& f) const { return String(f.name_offset, f.name_length); }
  // A struct's Connect schema name (has_name), e.g. "payload.address".
  std::string_view SchemaName(const Schema& schema) const {
    return std::string_view(names).substr(schema.name_offset, schema.name_length);
  }
};

// Why a value does not fit its inferred schema (Struct.put's DataException: Debezium's task
// fails), whichever converter writes it.
inline constexpr std::string_view kBigIntegerReason =
    "an integer beyond 64 bits (Debezium's task fails: a BigDecimal in a float64 field)";
inline constexpr std::string_view kMismatchReason =
    "a value that does not fit the schema Debezium inferred from an earlier array member "
    "(Debezium's task fails: Struct validation)";

inline constexpr std::string_view kNullMemberReason =
    "a null member of an array of objects of different shapes (Debezium's task fails: its "
    "merged struct is not optional)";

// toConnectSchema's primitive schemas, one per node type (NUMBER by width).
inline SchemaType PrimitiveType(const Node& node) {
  switch (node.number) {
    case NumberType::kInt:
      return SchemaType::kInt32;
    case NumberType::kLong:
      return SchemaType::kInt64;
    case NumberType::kBig:
    case NumberType::kDouble:
      return SchemaType::kFloat64;
  }
  return SchemaType::kFloat64;
}

// ConnectSchema.equals over what inference sets: type, optional, name, fields, items; with
// `any_optional`, the two schemas' own "optional" is not compared (their fields' still is).
bool SameSchema(const Scratch& s, int32_t a, int32_t b, bool any_optional = false);

// Parses `text` into s.nodes (node 0 the document) as Jackson's readTree does; false where it
// throws (json_parse.cc).
bool ParseDocument(std::string_view text, Scratch& s);

// The scratch of this thread, reused by every call (json_expand.h: views valid until the next).
Scratch& ThreadScratch();

}  // namespace outboxd::encoding::expand
