#include "kafka/stats.h"

#include "simdjson.h"

namespace outboxd::kafka {

std::optional<ProducerStats> ParseProducerStats(std::string_view stats_json) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(stats_json.data(), stats_json.size()).get(doc) != simdjson::SUCCESS) {
    return std::nullopt;
  }
  simdjson::dom::object brokers;
  if (doc["brokers"].get(brokers) != simdjson::SUCCESS) return std::nullopt;
  ProducerStats stats;
  for (auto [name, broker] : brokers) {
    uint64_t retries = 0;
    std::string_view state;
    if (broker["txretries"].get(retries) != simdjson::SUCCESS ||
        broker["state"].get(state) != simdjson::SUCCESS) {
      return std::nullopt;
    }
    stats.retries += retries;
    if (state == "UP") ++stats.brokers_up;
  }
  return stats;
}

}  // namespace outboxd::kafka
