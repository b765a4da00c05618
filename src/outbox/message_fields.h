#pragma once
// The table-less outbox: an application calls pg_logical_emit_message(true, prefix, content)
// with a JSON object whose fields play the outbox table's columns (id, aggregatetype,
// aggregateid, payload, ...), as Debezium's DecodeLogicalDecodingMessageContent reads them.
// This reads such an object into column values, so the Mapper maps it like a row.

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "pgoutput/messages.h"

namespace simdjson::dom {
class parser;
}  // namespace simdjson::dom

namespace outboxd::outbox {

// Reuses its parser and buffers from message to message. Not thread-safe.
class MessageFields {
 public:
  MessageFields();
  ~MessageFields();
  MessageFields(const MessageFields&) = delete;
  MessageFields& operator=(const MessageFields&) = delete;

  // Parses `content`, which must be one JSON object, and sets values[i] for names[i]: NULL
  // when the field is absent or JSON null; a string's unescaped text; any other value's
  // compact JSON text, with structured(i) true for objects and arrays. Values view this
  // object's buffers until the next Parse. InvalidArgument, naming the problem, when the
  // content is not a JSON object.
  absl::Status Parse(std::string_view content, std::span<const std::string_view> names,
                     std::vector<pgoutput::ColumnValue>& values);
  bool structured(size_t i) const { return i < structured_.size() && structured_[i]; }

 private:
  std::unique_ptr<simdjson::dom::parser> parser_;
  std::string padded_;    // content + SIMDJSON_PADDING, as simdjson requires.
  std::string rendered_;  // Compact JSON of non-string values, back to back.
  std::vector<bool> structured_;
  std::vector<std::pair<size_t, size_t>> spans_;  // Offset and size in rendered_, per name.
};

}  // namespace outboxd::outbox
