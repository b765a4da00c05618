#include "daemon/options.h"

#include "fmt/format.h"

namespace outboxd::daemon {
namespace {

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
  } else if (arg == "--log-format" && has_value) {
    if (!log::ParseFormat(argv[++i], options.format)) {
      return absl::InvalidArgumentError(fmt::format("--log-format {}: use text or json", argv[i]));
    }
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

absl::StatusOr<Options> ParseArgs(int argc, const char* const* argv) {
  if (argc < 2) return absl::InvalidArgumentError("no command given");
  Options options;
  options.command = argv[1];
  if (options.command == "--help" || options.command == "-h") options.command = "help";
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
