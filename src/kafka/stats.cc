#include "kafka/stats.h"

#include <string>

#include "simdjson.h"

namespace outboxd::kafka {

std::optional<uint64_t> TotalRetries(std::string_view stats_json) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(stats_json.data(), stats_json.size()).get(doc) != simdjson::SUCCESS) {
    return std::nullopt;
  }
  simdjson::dom::object brokers;
  if (doc["brokers"].get(brokers) != simdjson::SUCCESS) return std::nullopt;
  uint64_t total = 0;
  for (auto [name, broker] : brokers) {
    uint64_t retries = 0;
    if (broker["txretries"].get(retries) != simdjson::SUCCESS) return std::nullopt;
    total += retries;
  }
  return total;
}

}  // namespace outboxd::kafka
