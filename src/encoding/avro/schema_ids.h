#pragma once
// What the avro converters ask of a schema registry: the id a record's schema is written with.
// Implemented by registry::CachedSchemaIds; tests substitute a fake.

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"

namespace outboxd::encoding {

class SchemaIds {
 public:
  virtual ~SchemaIds() = default;
  // The id of `schema_json` (an Avro schema named `name`: a record's full name, else its type)
  // as the key (`is_key`) or value schema of a record to `topic`. Errors: ResourceExhausted
  // while the registry is unreachable (the row is retried later, nothing is dead-lettered);
  // InvalidArgument when the registry refuses the schema as invalid (the row is
  // dead-lettered); FailedPrecondition, Unauthenticated or PermissionDenied for what an
  // operator must fix (incompatible schema, credentials). Runs on the replication loop thread;
  // allocates nothing once the (subject, schema) pair is cached.
  virtual absl::StatusOr<int32_t> IdFor(std::string_view topic, bool is_key, std::string_view name,
                                        std::string_view schema_json) = 0;
};

}  // namespace outboxd::encoding
