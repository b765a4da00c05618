#pragma once
// Bounds-checked big-endian cursor over one pgoutput message. Internal to the decoder.
//
// Errors are sticky, like Postgres' pq_getmsg* but without longjmp: the first failure is kept,
// later reads return zero/empty values, and Finish() reports it. That keeps each per-tag decode
// function a straight list of fields while every read stays checked.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace outboxd::pgoutput::internal {

// Reads a big-endian integer from `p`, which must hold sizeof(T) bytes.
template <typename T>
inline T LoadBigEndian(const char* p) {
  T value = 0;
  for (size_t i = 0; i < sizeof(T); ++i) {
    value = static_cast<T>(value << 8) | static_cast<unsigned char>(p[i]);
  }
  return value;
}

// Names a wire field in error messages, e.g. {"new", "TupleData column", 3, "length"} prints
// as "new TupleData column 3 length". Only formatted on the error path.
struct Field {
  // Implicit so that plain field names read naturally: r.Int32("xid").
  constexpr Field(const char* field_name) : name(field_name) {}  // NOLINT(runtime/explicit)
  constexpr Field(std::string_view field_prefix, std::string_view field_name, int field_index = -1,
                  std::string_view field_suffix = {})
      : prefix(field_prefix), name(field_name), index(field_index), suffix(field_suffix) {}

  std::string ToString() const;

  std::string_view prefix;
  std::string_view name;
  int index = -1;
  std::string_view suffix;
};

class WireReader {
 public:
  // `message_type` (e.g. "Insert") prefixes every error and must outlive the reader;
  // `bytes` is the message body after the tag byte and must outlive every view returned.
  WireReader(std::string_view bytes, std::string_view message_type)
      : rest_(bytes), message_type_(message_type) {}

  uint8_t Byte(const Field& field) { return Load<uint8_t>(field); }
  uint16_t Int16(const Field& field) { return Load<uint16_t>(field); }
  uint32_t Int32(const Field& field) { return Load<uint32_t>(field); }
  uint64_t Int64(const Field& field) { return Load<uint64_t>(field); }
  // A signed Int32 length that must be >= 0 (Postgres reads these as int).
  size_t Length(const Field& field);
  // A NUL-terminated string; the view excludes the NUL.
  std::string_view CString(const Field& field);
  std::string_view Bytes(size_t n, const Field& field);

  // Fails unless `n` more bytes are available; for checking counts before allocating.
  bool Require(size_t n, const Field& field);
  // Records "pgoutput <message_type>: <detail>" unless an earlier error is already recorded.
  void Fail(std::string_view detail);

  bool ok() const { return status_.ok(); }
  size_t remaining() const { return rest_.size(); }
  std::string_view rest() const { return rest_; }
  // The first error, or DataLoss if bytes are left over, or OK.
  absl::Status Finish();

 private:
  template <typename T>
  T Load(const Field& field) {
    if (!Require(sizeof(T), field)) return 0;
    T value = LoadBigEndian<T>(rest_.data());
    rest_.remove_prefix(sizeof(T));
    return value;
  }

  std::string_view rest_;
  std::string_view message_type_;
  absl::Status status_;
};

}  // namespace outboxd::pgoutput::internal
