#pragma once
// Reading librdkafka's statistics JSON (statistics.interval.ms): only what outboxd uses.

#include <cstdint>
#include <optional>
#include <string_view>

namespace outboxd::kafka {

struct ProducerStats {
  uint64_t retries = 0;  // Sum of `txretries` over brokers: requests re-sent since the start.
  int brokers_up = 0;    // Brokers whose connection `state` is "UP".
};

// Parses one statistics document; nullopt when it is not what librdkafka writes.
std::optional<ProducerStats> ParseProducerStats(std::string_view stats_json);

}  // namespace outboxd::kafka
