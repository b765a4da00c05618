#include "relay/dead_letter.h"

#include "common/strings.h"

namespace outboxd::relay {
namespace {

std::optional<std::string> Owned(std::optional<std::string_view> view) {
  if (!view) return std::nullopt;
  return std::string(*view);
}

std::optional<std::string> Owned(const void* data, size_t size) {
  if (data == nullptr) return std::nullopt;
  return std::string(static_cast<const char*>(data), size);
}

}  // namespace

DeadLetter DeadLetter::FromEvent(const outbox::OutboxEvent& event, const RecordOrigin& origin) {
  DeadLetter dl{
      .origin = origin, .key = Owned(event.key), .value = Owned(event.value), .headers = {}};
  for (const auto& h : event.headers) dl.headers.emplace_back(std::string(h.name), Owned(h.value));
  return dl;
}

DeadLetter DeadLetter::FromReport(const rd_kafka_message_t& message, bool already_dead_letter,
                                  std::string_view reason, std::string_view table,
                                  const RecordOrigin& origin) {
  DeadLetter dl{.origin = origin,
                .key = Owned(message.key, message.key_len),
                .value = Owned(message.payload, message.len),
                .headers = {}};
  rd_kafka_headers_t* headers = nullptr;
  if (rd_kafka_message_headers(&message, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR) {
    const char* name = nullptr;
    const void* value = nullptr;
    size_t size = 0;
    for (size_t i = 0;
         rd_kafka_header_get_all(headers, i, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR;
         ++i) {
      dl.headers.emplace_back(name, Owned(value, size));
    }
  }
  if (!already_dead_letter) {
    dl.headers.emplace_back(outbox::kErrorHeader, std::string(reason));
    dl.headers.emplace_back(kTopicHeader, rd_kafka_topic_name(message.rkt));
    dl.headers.emplace_back(outbox::kTableHeader, std::string(table));
    dl.headers.emplace_back(outbox::kLsnHeader, origin.lsn.ToString());
    dl.headers.emplace_back(outbox::kXidHeader, Concat(origin.xid.value));
  }
  return dl;
}

bool DeadLetter::DropValue() {
  if (!value) return false;
  headers.emplace_back(kValueDroppedHeader, Concat(value->size(), " bytes"));
  value.reset();
  return true;
}

kafka::Record DeadLetter::AsRecord(const std::string& topic,
                                   std::vector<kafka::Header>& scratch) const {
  scratch.clear();
  for (const auto& [name, v] : headers) {
    scratch.push_back({name, v ? std::optional<std::string_view>(*v) : std::nullopt});
  }
  return {.topic = topic,
          .key = key ? std::optional<std::string_view>(*key) : std::nullopt,
          .value = value ? std::optional<std::string_view>(*value) : std::nullopt,
          .headers = scratch};
}

}  // namespace outboxd::relay
