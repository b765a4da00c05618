#include "options.h"

#include <charconv>
#include <string_view>

namespace consumer {

const char kUsage[] =
    "usage: outboxd-example-consumer --brokers HOST:PORT --group GROUP --topic TOPIC...\n"
    "                                --postgres CONNINFO [--commit-interval-ms MS]\n"
    "                                [-X librdkafka.property=value]...\n"
    "Reads outboxd's envelope-protobuf records and applies each event once to the database\n"
    "(tables from examples/consumer/inbox.sql and schema.sql).\n"
    "--topic repeats; ^REGEX subscribes by pattern.\n"
    "Exit codes: 0 stopped by SIGTERM/SIGINT, 1 Kafka failed, 2 bad arguments or set-up,\n"
    "3 a record could not be decoded or applied (its offset is not committed).\n";

namespace {

// Splits "--name=value" into name and value; "--name" alone gets no value.
std::pair<std::string_view, std::optional<std::string_view>> SplitFlag(std::string_view arg) {
  const size_t eq = arg.find('=');
  if (arg.starts_with("--") && eq != std::string_view::npos) {
    return {arg.substr(0, eq), arg.substr(eq + 1)};
  }
  return {arg, std::nullopt};
}

bool ParsePositiveInt(std::string_view text, int& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && out > 0;
}

// Checks what each flag needs once all are read; empty when nothing is missing.
std::string MissingRequired(const Options& options) {
  std::string missing;
  const auto need = [&missing](bool ok, const char* flag) {
    if (!ok) missing += missing.empty() ? flag : std::string(", ") + flag;
  };
  need(!options.brokers.empty(), "--brokers");
  need(!options.group.empty(), "--group");
  need(!options.topics.empty(), "--topic");
  need(!options.postgres.empty(), "--postgres");
  return missing;
}

}  // namespace

std::optional<Options> ParseOptions(int argc, char** argv, std::string& error) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    auto [flag, inline_value] = SplitFlag(argv[i]);
    if (flag == "--help" || flag == "-h") {
      options.help = true;
      return options;
    }
    if (flag != "--brokers" && flag != "--group" && flag != "--topic" && flag != "--postgres" &&
        flag != "--commit-interval-ms" && flag != "-X") {
      error = "unknown argument \"" + std::string(argv[i]) + "\"";
      return std::nullopt;
    }
    std::string_view value;
    if (inline_value.has_value()) {
      value = *inline_value;
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      error = std::string(flag) + " needs a value";
      return std::nullopt;
    }
    if (value.empty()) {
      error = std::string(flag) + " needs a non-empty value";
      return std::nullopt;
    }
    if (flag == "--brokers") {
      options.brokers = value;
    } else if (flag == "--group") {
      options.group = value;
    } else if (flag == "--topic") {
      options.topics.emplace_back(value);
    } else if (flag == "--postgres") {
      options.postgres = value;
    } else if (flag == "--commit-interval-ms") {
      if (!ParsePositiveInt(value, options.commit_interval_ms)) {
        error = "--commit-interval-ms must be a positive number of milliseconds, not \"" +
                std::string(value) + "\"";
        return std::nullopt;
      }
    } else {  // -X
      const size_t eq = value.find('=');
      if (eq == 0 || eq == std::string_view::npos) {
        error = "-X takes a librdkafka property as key=value, not \"" + std::string(value) + "\"";
        return std::nullopt;
      }
      options.kafka_properties.emplace_back(value.substr(0, eq), value.substr(eq + 1));
    }
  }
  if (const std::string missing = MissingRequired(options); !missing.empty()) {
    error = "missing " + missing;
    return std::nullopt;
  }
  return options;
}

}  // namespace consumer
