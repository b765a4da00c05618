#pragma once
// The command line: `outboxd <command> [flags]`, parsed into Options.

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/log.h"

namespace outboxd::daemon {

inline constexpr std::string_view kUsage =
    "usage: outboxd run   --config FILE [--log-level L] [--log-format F] [--allow-new-slot]\n"
    "       outboxd run   --debezium-config CONNECTOR.json [--config FILE] ...\n"
    "       outboxd check --config FILE [--offline]   check the config, then the servers\n"
    "       outboxd slot status|create|drop --config FILE [--yes]\n"
    "       outboxd import-debezium CONNECTOR.json   print the equivalent outboxd config\n"
    "       outboxd version | --version | --help | COMMAND --help\n"
    "  --debezium-config  run, check and slot from a Debezium connector JSON (as posted to\n"
    "              Kafka Connect); Kafka from OUTBOXD_KAFKA_BOOTSTRAP_SERVERS or the [kafka]\n"
    "              section of --config FILE (which may then hold only [kafka], [relay],\n"
    "              [http], [log])\n"
    "  --log-level debug|info|warn|error (default info, or OUTBOXD_LOG_LEVEL, or [log] level)\n"
    "  --log-format text|json (default text, or OUTBOXD_LOG_FORMAT, or [log] format; json: one\n"
    "              object per line)\n"
    "  --offline   check only validates the config file, without contacting any server\n"
    "  --yes       slot drop: confirm discarding the slot and its position\n"
    "  --allow-new-slot  run: accept a server that lacks what outboxd last confirmed (missing\n"
    "              slot, other system or timeline): events in the gap are not published\n";

// The environment variables that set the log defaults; a flag overrides them, and they
// override the config file's [log] section.
inline constexpr std::string_view kEnvLogLevel = "OUTBOXD_LOG_LEVEL";
inline constexpr std::string_view kEnvLogFormat = "OUTBOXD_LOG_FORMAT";

struct Options {
  std::string command;               // run, check, slot, import-debezium, version, help
  std::string slot_action;           // status, create, drop (command slot only)
  std::string config_path;           // --config; optional with --debezium-config
  std::string debezium_config_path;  // --debezium-config, or import-debezium's argument
  log::Level level = log::Level::kInfo;
  log::Format format = log::Format::kText;
  bool level_given = false;     // level came from --log-level or OUTBOXD_LOG_LEVEL.
  bool format_given = false;    // format came from --log-format or OUTBOXD_LOG_FORMAT.
  bool help = false;            // COMMAND --help: print CommandUsage(command) and exit 0.
  bool offline = false;         // check: config file only.
  bool yes = false;             // slot drop: confirmed.
  bool allow_new_slot = false;  // run: override the failover checks (exit 7).
};

// Looks up an environment variable; nullopt when unset. Injected so tests never read the real
// environment.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

// Parses argv[1..argc). The log level and format start from OUTBOXD_LOG_LEVEL and
// OUTBOXD_LOG_FORMAT in `env` (when given), which the flags override. Returns InvalidArgument
// naming the offending argument or variable; print kUsage with it.
absl::StatusOr<Options> ParseArgs(int argc, const char* const* argv, const EnvLookup& env = {});

// Takes the config file's [log] level and format (nullopt: not in the file) where neither a flag
// nor the environment gave one: flag > environment > config file > default.
void ApplyConfigLog(std::optional<log::Level> level, std::optional<log::Format> format,
                    Options& options);

// The usage of one command (run, check, slot, import-debezium, version), for COMMAND --help;
// kUsage for any other.
std::string_view CommandUsage(std::string_view command);

}  // namespace outboxd::daemon
