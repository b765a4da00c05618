#include "outbox/column_schema.h"

namespace outboxd::outbox {
namespace {

// pg_type OIDs (src/include/catalog/pg_type.dat).
enum : uint32_t {
  kBool = 16,
  kBytea = 17,
  kName = 19,
  kInt8 = 20,
  kInt2 = 21,
  kInt4 = 23,
  kText = 25,
  kJson = 114,
  kBpchar = 1042,
  kVarchar = 1043,
  kUuid = 2950,
  kJsonb = 3802,
};

}  // namespace

std::optional<ColumnSchema> SchemaOfType(uint32_t type_oid, bool not_null) {
  ColumnSchema schema;
  schema.optional = !not_null;
  switch (type_oid) {
    case kText:
    case kVarchar:
    case kBpchar:
    case kName:
      schema.type = "string";
      return schema;
    case kJson:
    case kJsonb:
      schema.type = "string";
      schema.name = "io.debezium.data.Json";
      schema.version = 1;
      return schema;
    case kUuid:
      schema.type = "string";
      schema.name = "io.debezium.data.Uuid";
      schema.version = 1;
      return schema;
    case kBytea:
      schema.type = "bytes";
      schema.bytea = true;
      return schema;
    case kInt2:
    case kInt4:
    case kInt8:
      schema.type = type_oid == kInt2 ? "int16" : type_oid == kInt4 ? "int32" : "int64";
      schema.number = true;
      return schema;
    case kBool:
      schema.type = "boolean";
      schema.boolean = true;
      return schema;
    default:
      return std::nullopt;
  }
}

}  // namespace outboxd::outbox
