#pragma once
// Validation of payload text as JSON (simdjson), for [outbox] validate_json.

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace simdjson::dom {
class parser;
}  // namespace simdjson::dom

namespace outboxd::outbox {

// Reuses one parser and one padded copy buffer from row to row: once both fit the largest
// document seen, Check allocates nothing. Runs on the loop thread; not thread-safe.
class JsonValidator {
 public:
  JsonValidator();
  ~JsonValidator();
  JsonValidator(const JsonValidator&) = delete;
  JsonValidator& operator=(const JsonValidator&) = delete;

  // nullopt when `text` is exactly one valid JSON document (RFC 8259, UTF-8); else simdjson's
  // reason, a static string such as "TAPE_ERROR: ...".
  std::optional<std::string_view> Check(std::string_view text);

 private:
  std::unique_ptr<simdjson::dom::parser> parser_;
  std::string padded_;  // text + SIMDJSON_PADDING bytes, as simdjson requires.
};

}  // namespace outboxd::outbox
