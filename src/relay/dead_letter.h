#pragma once
// Records on their way to the dead-letter topic (DESIGN.md invariant 7), with owned storage
// because they outlive the WAL buffer or delivery report they came from.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/types.h"
#include "kafka/producer.h"
#include "outbox/mapper.h"
#include "relay/record_origin.h"

namespace outboxd::relay {

// Header added when a record was too large even for the dead-letter topic and its value was
// dropped so that the row still leaves a trace and the stream moves on.
inline constexpr std::string_view kValueDroppedHeader = "outboxd.value_dropped";
// Header naming the topic the record was routed to before Kafka refused it.
inline constexpr std::string_view kTopicHeader = "outboxd.topic";

struct DeadLetter {
  RecordOrigin origin;
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;

  // Copies the record that Mapper::MapDeadLetter built.
  static DeadLetter FromEvent(const outbox::OutboxEvent& event, const RecordOrigin& origin);
  // Copies a record Kafka refused out of its delivery report. Unless it was already a
  // dead-letter record, adds the outboxd.* headers naming the reason, its topic and origin.
  // The outboxd.table header comes from origin.table.
  static DeadLetter FromReport(const kafka::DeliveryFailure& failure, bool already_dead_letter,
                               const RecordOrigin& origin);

  // Replaces the value with null and records its size in kValueDroppedHeader.
  // Returns false when there was no value to drop.
  bool DropValue();
  // A view for Producer::Produce; `scratch` holds the header views and must outlive the call.
  kafka::Record AsRecord(const std::string& topic, std::vector<Header>& scratch) const;
};

}  // namespace outboxd::relay
