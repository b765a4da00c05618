#include "outbox/message_fields.h"

#include <cstring>

#include "fmt/format.h"
#include "simdjson.h"

namespace outboxd::outbox {
namespace {

using pgoutput::ColumnKind;
using pgoutput::ColumnValue;

bool IsStructured(simdjson::dom::element_type type) {
  return type == simdjson::dom::element_type::OBJECT || type == simdjson::dom::element_type::ARRAY;
}

}  // namespace

MessageFields::MessageFields() : parser_(std::make_unique<simdjson::dom::parser>()) {}
MessageFields::~MessageFields() = default;

absl::Status MessageFields::Parse(std::string_view content, std::span<const std::string_view> names,
                                  std::vector<ColumnValue>& values) {
  padded_.resize(content.size() + simdjson::SIMDJSON_PADDING);
  if (!content.empty()) std::memcpy(padded_.data(), content.data(), content.size());
  simdjson::dom::element root;
  if (auto error = parser_->parse(padded_.data(), content.size(), false).get(root); error) {
    return absl::InvalidArgumentError(fmt::format(
        "the message content is not JSON ({}); emit a JSON object with the outbox fields",
        simdjson::error_message(error)));
  }
  simdjson::dom::object object;
  if (root.get_object().get(object) != simdjson::SUCCESS) {
    return absl::InvalidArgumentError(
        "the message content is JSON but not an object; emit a JSON object with the outbox "
        "fields, e.g. {\"id\": ..., \"aggregatetype\": ..., \"aggregateid\": ..., \"payload\": "
        "...}");
  }
  // First render every non-string value, then take views: rendered_ may move while it grows.
  values.assign(names.size(), ColumnValue{});
  structured_.assign(names.size(), false);
  rendered_.clear();
  spans_.assign(names.size(), {0, 0});
  for (size_t i = 0; i < names.size(); ++i) {
    simdjson::dom::element field;
    if (object.at_key(names[i]).get(field) != simdjson::SUCCESS || field.is_null()) continue;
    if (std::string_view text; field.get_string().get(text) == simdjson::SUCCESS) {
      values[i] = ColumnValue{.kind = ColumnKind::kText, .data = text};  // In the parser's buffer.
      continue;
    }
    structured_[i] = IsStructured(field.type());
    const size_t start = rendered_.size();
    rendered_ += simdjson::minify(field);
    spans_[i] = {start, rendered_.size() - start};
    values[i].kind = ColumnKind::kText;
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (spans_[i].second > 0)
      values[i].data = std::string_view(rendered_).substr(spans_[i].first, spans_[i].second);
  }
  return absl::OkStatus();
}

}  // namespace outboxd::outbox
