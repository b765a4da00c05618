#pragma once
// Command-line options of the example consumer, parsed and checked before anything connects.

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace consumer {

struct Options {
  std::string brokers;  // --brokers: Kafka bootstrap servers, host:port[,host:port...]
  std::string group;    // --group: the consumer group; its committed offsets are our position
  std::vector<std::string> topics;  // --topic (repeatable); "^regex" subscribes by pattern
  std::string postgres;             // --postgres: libpq conninfo of the database holding schema.sql
  int commit_interval_ms = 1000;    // --commit-interval-ms: how often applied offsets commit
  std::vector<std::pair<std::string, std::string>> kafka_properties;  // -X key=value
  bool help = false;  // --help: print the usage and exit 0
};

// The usage text printed by --help and after a bad argument.
extern const char kUsage[];

// Parses argv. On a bad or missing argument returns nullopt and sets `error` to a sentence
// naming the argument and what to pass instead.
std::optional<Options> ParseOptions(int argc, char** argv, std::string& error);

}  // namespace consumer
