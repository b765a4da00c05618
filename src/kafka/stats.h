#pragma once
// Reading librdkafka's statistics JSON (statistics.interval.ms): only what outboxd exports.

#include <cstdint>
#include <optional>
#include <string_view>

namespace outboxd::kafka {

// The sum of `txretries` over the brokers in one statistics document: requests librdkafka
// re-sent since the producer started. nullopt when the document is not what librdkafka
// writes.
std::optional<uint64_t> TotalRetries(std::string_view stats_json);

}  // namespace outboxd::kafka
