#pragma once
// One Avro schema parsed by avro-c (libavro) and a generic value of it that is filled from a
// row's column texts and written in Confluent's wire format. The value and its buffers are
// reused from row to row: once warm, filling and writing allocate nothing. Not thread-safe:
// each replication stream owns its own (in its RelationLayout).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "outbox/column_schema.h"
#include "outbox/relation_layout.h"

struct avro_value;  // avro-c's avro_value_t (avro/value.h).

namespace outboxd::encoding {

// Kept in a relation layout's encoder cache (raw_avro.cc).
class AvroDatum : public outbox::internal::EncoderCache {
 public:
  // Parses `schema_json` (AvroSchema/AvroRecordSchema output); InvalidArgument with avro-c's
  // message when it is not a valid Avro schema (e.g. a record name Avro refuses).
  static absl::StatusOr<std::unique_ptr<AvroDatum>> Create(std::string_view schema_json);
  ~AvroDatum() override;
  AvroDatum(const AvroDatum&) = delete;
  AvroDatum& operator=(const AvroDatum&) = delete;

  // The schema text given to Create (what is registered).
  const std::string& schema_json() const { return schema_json_; }

  // Sets the whole value (a non-record schema), or field `index` of a record, to a column's
  // value: `text` as pgoutput sends it (bytea as \x hex when schema.bytea, else raw bytes for
  // "bytes"), nullopt for NULL. InvalidArgument when the text does not fit the schema (NULL in
  // a required field, malformed hex or integer).
  absl::Status Set(const outbox::ColumnSchema& schema, std::optional<std::string_view> text);
  absl::Status SetField(size_t index, const outbox::ColumnSchema& schema,
                        std::optional<std::string_view> text);

  // Appends the magic byte, `schema_id` and the value's Avro binary encoding to `out`.
  absl::Status AppendFramed(int32_t schema_id, std::string& out);

 private:
  struct Handles;
  // Sets `value` (the whole value or a field of it) as Set describes.
  absl::Status SetValue(::avro_value& value, const outbox::ColumnSchema& schema,
                        std::optional<std::string_view> text);
  explicit AvroDatum(std::string schema_json, std::unique_ptr<Handles> handles);

  const std::string schema_json_;
  std::unique_ptr<Handles> handles_;  // avro-c's schema, value class, value and writer.
  std::string scratch_;               // A NUL-terminated string or decoded bytea being set.
};

}  // namespace outboxd::encoding
