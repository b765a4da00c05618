#pragma once
// Writes the TOML config file that `outboxd run --config FILE` reads.

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace outboxd::it {

struct OutboxdConfig {
  std::string pg_conninfo;
  std::string slot;
  std::string publication;
  std::vector<std::string> tables;            // "public.name"
  std::vector<std::string> message_prefixes;  // [postgres]; empty = no table-less outbox
  int status_interval_ms = 200;
  int parallel_slots = 1;  // [postgres] parallel_slots; 1 is left out (the default)
  std::string kafka_bootstrap;
  std::map<std::string, std::string> kafka_properties;  // extra librdkafka properties
  std::string topic_pattern;                            // e.g. "it_x.${aggregatetype}"
  std::string dead_letter_topic;                        // [outbox]; empty = outboxd's default
  std::string format;                                   // [outbox]; empty = "raw" (the default)
  std::string http_listen;                              // [http] listen; empty = no section
  std::string delivery;                    // [relay] delivery; empty = the default (at_least_once)
  std::vector<std::string> relay_lines{};  // more [relay] lines, e.g. "transaction_split_ms = 50"
};

// The file's text: [postgres], [kafka] and [outbox] tables, [http] when http_listen is set,
// [relay] when delivery or relay_lines is set.
std::string RenderConfig(const OutboxdConfig& config);

// Writes RenderConfig(config) to `path` (replacing it).
absl::Status WriteConfig(const OutboxdConfig& config, const std::string& path);

}  // namespace outboxd::it
