#include "outbox/json_validator.h"

#include <cstring>

#include "simdjson.h"

namespace outboxd::outbox {

JsonValidator::JsonValidator() : parser_(std::make_unique<simdjson::dom::parser>()) {}
JsonValidator::~JsonValidator() = default;

std::optional<std::string_view> JsonValidator::Check(std::string_view text) {
  // The WAL buffer has no guaranteed slack after the value, so copy into a padded buffer that
  // only ever grows (resize within capacity does not allocate).
  padded_.resize(text.size() + simdjson::SIMDJSON_PADDING);
  if (!text.empty()) std::memcpy(padded_.data(), text.data(), text.size());
  const simdjson::error_code error =
      parser_->parse(padded_.data(), text.size(), /*realloc_if_needed=*/false).error();
  if (error == simdjson::SUCCESS) return std::nullopt;
  return std::string_view(simdjson::error_message(error));
}

}  // namespace outboxd::outbox
