#include "daemon/options.h"

#include <optional>

#include "fmt/format.h"

namespace outboxd::daemon {
namespace {

constexpr std::string_view kLogFlagsUsage =
    "  --log-level debug|info|warn|error   default info, or $OUTBOXD_LOG_LEVEL, or [log] level\n"
    "  --log-format text|json              default text, or $OUTBOXD_LOG_FORMAT, or [log] format\n";

constexpr std::string_view kRunUsage =
    "usage: outboxd run --config FILE [--allow-new-slot] [--log-level L] [--log-format F]\n"
    "       outboxd run --debezium-config CONNECTOR.json [--config FILE] ...\n"
    "Relays the outbox tables to Kafka until SIGTERM or SIGINT. Exit codes 0-7 are\n"
    "listed in docs/operating.md.\n"
    "  --config FILE             the TOML config (docs/configuration.md)\n"
    "  --debezium-config FILE    a Debezium connector JSON instead; Kafka settings from\n"
    "                            OUTBOXD_KAFKA_BOOTSTRAP_SERVERS or the [kafka] of --config\n"
    "  --allow-new-slot          accept a server that lacks what outboxd last confirmed\n"
    "                            (missing slot, other system or timeline): events in the gap\n"
    "                            are not published\n";
constexpr std::string_view kCheckUsage =
    "usage: outboxd check --config FILE [--offline] [--log-level L] [--log-format F]\n"
    "       outboxd check --debezium-config CONNECTOR.json [--config FILE] ...\n"
    "Validates the config, then checks everything `run` needs on the live servers, changing\n"
    "nothing: one PASS, WARN or FAIL line per check. Exit 0 when nothing failed.\n"
    "  --offline                 only validate the config, contact no server\n";
constexpr std::string_view kSlotUsage =
    "usage: outboxd slot status|create|drop --config FILE [--yes] [--log-level L] ...\n"
    "Shows, creates or drops the replication slot and publication of the config.\n"
    "  --yes                     drop: confirm discarding the slot and its position\n";
constexpr std::string_view kImportUsage =
    "usage: outboxd import-debezium CONNECTOR.json\n"
    "Prints the outboxd TOML equivalent to a Debezium connector JSON on stdout; options it\n"
    "cannot carry over are warned about on stderr.\n";
constexpr std::string_view kVersionUsage =
    "usage: outboxd version | outboxd --version\n"
    "Prints \"outboxd <version> (commit <hash>)\" (git describe and commit of the build), then\n"
    "the versions of librdkafka and libpq it runs with and of simdjson, one a line; exits 0.\n";

bool IsHelp(std::string_view arg) { return arg == "--help" || arg == "-h"; }

// The level and format from OUTBOXD_LOG_LEVEL / OUTBOXD_LOG_FORMAT, before the flags.
absl::Status ReadLogEnvironment(const EnvLookup& env, Options& options) {
  if (!env) return absl::OkStatus();
  if (std::optional<std::string> level = env(kEnvLogLevel)) {
    if (!log::ParseLevel(*level, options.level)) {
      return absl::InvalidArgumentError(
          fmt::format("{}={}: use debug, info, warn or error", kEnvLogLevel, *level));
    }
    options.level_given = true;
  }
  if (std::optional<std::string> format = env(kEnvLogFormat)) {
    if (!log::ParseFormat(*format, options.format)) {
      return absl::InvalidArgumentError(
          fmt::format("{}={}: use text or json", kEnvLogFormat, *format));
    }
    options.format_given = true;
  }
  return absl::OkStatus();
}

bool TakesConfig(std::string_view command) {
  return command == "run" || command == "check" || command == "slot";
}

absl::Status ParseFlag(int argc, const char* const* argv, int& i, Options& options) {
  const std::string_view arg = argv[i];
  const bool has_value = i + 1 < argc;
  if (arg == "--config" && has_value) {
    options.config_path = argv[++i];
  } else if (arg == "--debezium-config" && has_value && TakesConfig(options.command)) {
    options.debezium_config_path = argv[++i];
  } else if (arg == "--log-level" && has_value) {
    if (!log::ParseLevel(argv[++i], options.level)) {
      return absl::InvalidArgumentError(
          fmt::format("--log-level {}: use debug, info, warn or error", argv[i]));
    }
    options.level_given = true;
  } else if (arg == "--log-format" && has_value) {
    if (!log::ParseFormat(argv[++i], options.format)) {
      return absl::InvalidArgumentError(fmt::format("--log-format {}: use text or json", argv[i]));
    }
    options.format_given = true;
  } else if (arg.starts_with("--log-format=") || arg.starts_with("--log-level=") ||
             arg.starts_with("--config=") || arg.starts_with("--debezium-config=")) {
    // --flag=value is the same as --flag value.
    const size_t eq = arg.find('=');
    const std::string flag(arg.substr(0, eq));
    const std::string value(arg.substr(eq + 1));
    const char* pair[] = {flag.c_str(), value.c_str()};
    int j = 0;
    return ParseFlag(2, pair, j, options);
  } else if (arg == "--offline" && options.command == "check") {
    options.offline = true;
  } else if (arg == "--yes" && options.command == "slot") {
    options.yes = true;
  } else if (arg == "--allow-new-slot" && options.command == "run") {
    options.allow_new_slot = true;
  } else {
    return absl::InvalidArgumentError(fmt::format("unexpected argument \"{}\"", arg));
  }
  return absl::OkStatus();
}

}  // namespace

void ApplyConfigLog(std::optional<log::Level> level, std::optional<log::Format> format,
                    Options& options) {
  if (level && !options.level_given) options.level = *level;
  if (format && !options.format_given) options.format = *format;
}

std::string_view CommandUsage(std::string_view command) {
  static const std::string run = fmt::format("{}{}", kRunUsage, kLogFlagsUsage);
  static const std::string check = fmt::format("{}{}", kCheckUsage, kLogFlagsUsage);
  static const std::string slot = fmt::format("{}{}", kSlotUsage, kLogFlagsUsage);
  if (command == "run") return run;
  if (command == "check") return check;
  if (command == "slot") return slot;
  if (command == "import-debezium") return kImportUsage;
  if (command == "version") return kVersionUsage;
  return kUsage;
}

absl::StatusOr<Options> ParseArgs(int argc, const char* const* argv, const EnvLookup& env) {
  if (argc < 2) return absl::InvalidArgumentError("no command given");
  Options options;
  options.command = argv[1];
  if (IsHelp(options.command)) options.command = "help";
  if (options.command == "--version" || options.command == "-V") options.command = "version";
  // COMMAND --help anywhere after a known command wins over every other argument.
  const bool known = TakesConfig(options.command) || options.command == "import-debezium" ||
                     options.command == "version" || options.command == "help";
  for (int j = 2; known && j < argc; ++j) {
    if (IsHelp(argv[j])) {
      options.help = true;
      return options;
    }
  }
  if (auto s = ReadLogEnvironment(env, options); !s.ok()) return s;
  int i = 2;
  if (options.command == "slot") {
    if (i >= argc) return absl::InvalidArgumentError("slot needs status, create or drop");
    options.slot_action = argv[i++];
    if (options.slot_action != "status" && options.slot_action != "create" &&
        options.slot_action != "drop") {
      return absl::InvalidArgumentError(fmt::format(
          "unknown slot action \"{}\": use status, create or drop", options.slot_action));
    }
  } else if (options.command == "import-debezium") {
    if (i >= argc || std::string_view(argv[i]).starts_with("--")) {
      return absl::InvalidArgumentError("import-debezium needs the connector JSON file");
    }
    options.debezium_config_path = argv[i++];
  } else if (!TakesConfig(options.command) && options.command != "version" &&
             options.command != "help") {
    return absl::InvalidArgumentError(fmt::format("unknown command \"{}\"", options.command));
  }
  for (; i < argc; ++i) {
    if (auto s = ParseFlag(argc, argv, i, options); !s.ok()) return s;
  }
  if (TakesConfig(options.command) && options.config_path.empty() &&
      options.debezium_config_path.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("{} needs --config FILE or --debezium-config CONNECTOR.json", options.command));
  }
  return options;
}

}  // namespace outboxd::daemon
