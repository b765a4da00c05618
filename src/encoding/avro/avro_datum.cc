#include "encoding/avro/avro_datum.h"

#include <avro.h>

#include <charconv>

#include "encoding/avro/avro_schema.h"
#include "fmt/format.h"
#include "outbox/bytea.h"

namespace outboxd::encoding {

using outbox::ColumnSchema;
using outbox::DecodeByteaHex;

struct AvroDatum::Handles {
  avro_schema_t schema = nullptr;
  avro_value_iface_t* iface = nullptr;
  avro_value_t value{};
  bool has_value = false;
  avro_writer_t writer = nullptr;

  ~Handles() {
    if (writer != nullptr) avro_writer_free(writer);
    if (has_value) avro_value_decref(&value);
    if (iface != nullptr) avro_value_iface_decref(iface);
    if (schema != nullptr) avro_schema_decref(schema);
  }
};

namespace {

absl::Status AvroError(std::string_view what) {
  return absl::InvalidArgumentError(fmt::format("avro: {}: {}", what, avro_strerror()));
}

template <typename T>
absl::Status ParseInteger(std::string_view text, T& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return absl::InvalidArgumentError(fmt::format("avro: \"{}\" is not an integer", text));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<AvroDatum>> AvroDatum::Create(std::string_view schema_json) {
  auto handles = std::make_unique<Handles>();
  if (avro_schema_from_json_length(schema_json.data(), schema_json.size(), &handles->schema) != 0) {
    return AvroError(fmt::format("schema {} is not valid", schema_json));
  }
  handles->iface = avro_generic_class_from_schema(handles->schema);
  if (handles->iface == nullptr) return AvroError("no value class for the schema");
  if (avro_generic_value_new(handles->iface, &handles->value) != 0) {
    return AvroError("cannot create a value");
  }
  handles->has_value = true;
  static constexpr char kPlaceholder[1] = {};  // Replaced by each AppendFramed's destination.
  handles->writer = avro_writer_memory(kPlaceholder, sizeof kPlaceholder);
  if (handles->writer == nullptr) return AvroError("cannot create a writer");
  return std::unique_ptr<AvroDatum>(new AvroDatum(std::string(schema_json), std::move(handles)));
}

AvroDatum::AvroDatum(std::string schema_json, std::unique_ptr<Handles> handles)
    : schema_json_(std::move(schema_json)), handles_(std::move(handles)) {}

AvroDatum::~AvroDatum() = default;

absl::Status AvroDatum::Set(const ColumnSchema& schema, std::optional<std::string_view> text) {
  return SetValue(handles_->value, schema, text);
}

absl::Status AvroDatum::SetField(size_t index, const ColumnSchema& schema,
                                 std::optional<std::string_view> text) {
  avro_value_t field;
  if (avro_value_get_by_index(&handles_->value, index, &field, nullptr) != 0) {
    return AvroError(fmt::format("no field {}", index));
  }
  return SetValue(field, schema, text);
}

absl::Status AvroDatum::SetValue(avro_value_t& value, const ColumnSchema& schema,
                                 std::optional<std::string_view> text) {
  avro_value_t target = value;
  if (schema.optional) {  // ["null", T]: branch 0 for NULL, 1 for a value.
    if (avro_value_set_branch(&value, text ? 1 : 0, &target) != 0) return AvroError("branch");
    if (!text) return avro_value_set_null(&target) == 0 ? absl::OkStatus() : AvroError("null");
  } else if (!text) {
    return absl::InvalidArgumentError("avro: NULL in a field whose schema is not optional");
  }
  int rc = 0;
  if (schema.type == "string") {
    scratch_.assign(*text);  // avro-c copies size bytes, the terminating NUL included.
    scratch_.push_back('\0');
    rc = avro_value_set_string_len(&target, scratch_.data(), scratch_.size());
  } else if (schema.type == "bytes") {
    std::string_view bytes = *text;
    if (schema.bytea) {
      if (auto s = DecodeByteaHex(*text, scratch_); !s.ok()) return s;
      bytes = scratch_;
    }
    rc = avro_value_set_bytes(&target, const_cast<char*>(bytes.data()), bytes.size());
  } else if (schema.type == "boolean") {
    rc = avro_value_set_boolean(&target, *text == "t" ? 1 : 0);
  } else if (schema.type == "int64") {
    int64_t n = 0;
    if (auto s = ParseInteger(*text, n); !s.ok()) return s;
    rc = avro_value_set_long(&target, n);
  } else if (schema.type == "int32" || schema.type == "int16" || schema.type == "int8") {
    int32_t n = 0;
    if (auto s = ParseInteger(*text, n); !s.ok()) return s;
    rc = avro_value_set_int(&target, n);
  } else {
    return absl::InvalidArgumentError(
        fmt::format("avro: Connect type {} is not written by outboxd", schema.type));
  }
  return rc == 0 ? absl::OkStatus() : AvroError("set");
}

absl::Status AvroDatum::AppendFramed(int32_t schema_id, std::string& out) {
  size_t size = 0;
  if (avro_value_sizeof(&handles_->value, &size) != 0) return AvroError("size");
  AppendConfluentHeader(schema_id, out);
  const size_t start = out.size();
  out.resize(start + size);
  avro_writer_memory_set_dest(handles_->writer, out.data() + start, static_cast<int64_t>(size));
  if (avro_value_write(handles_->writer, &handles_->value) != 0) return AvroError("write");
  return absl::OkStatus();
}

}  // namespace outboxd::encoding
