#include "relay/dead_letter.h"

#include "common/strings.h"

namespace outboxd::relay {
namespace {

std::optional<std::string> Owned(std::optional<std::string_view> view) {
  if (!view) return std::nullopt;
  return std::string(*view);
}

}  // namespace

DeadLetter DeadLetter::FromEvent(const outbox::OutboxEvent& event, const RecordOrigin& origin) {
  DeadLetter dl{
      .origin = origin, .key = Owned(event.key), .value = Owned(event.value), .headers = {}};
  for (const auto& h : event.headers) dl.headers.emplace_back(std::string(h.name), Owned(h.value));
  return dl;
}

DeadLetter DeadLetter::FromReport(const kafka::DeliveryFailure& failure, bool already_dead_letter,
                                  const RecordOrigin& origin) {
  DeadLetter dl{
      .origin = origin, .key = Owned(failure.key), .value = Owned(failure.value), .headers = {}};
  for (const Header& h : failure.headers)
    dl.headers.emplace_back(std::string(h.name), Owned(h.value));
  if (!already_dead_letter) {
    dl.headers.emplace_back(outbox::kErrorHeader, failure.reason);
    dl.headers.emplace_back(kTopicHeader, std::string(failure.topic));
    dl.headers.emplace_back(outbox::kTableHeader, std::string(origin.table));
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

kafka::Record DeadLetter::AsRecord(const std::string& topic, std::vector<Header>& scratch) const {
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
