// outboxd: relays rows inserted into PostgreSQL outbox tables to Kafka through a logical
// replication slot. See README.md.

#include <cstdio>
#include <string>

#include "common/log.h"
#include "common/status.h"
#include "config/config.h"
#include "daemon/check_command.h"
#include "daemon/exit_codes.h"
#include "daemon/options.h"
#include "daemon/run_command.h"
#include "daemon/secrets.h"
#include "daemon/slot_command.h"

namespace outboxd::daemon {
namespace {

int Main(const Options& options) {
  log::SetMinLevel(options.level);
  log::SetFormat(options.format);
  auto config = config::LoadConfig(options.config_path);
  if (!config.ok()) {
    log::Error("{}", MessageOf(config.status()));
    return kExitUsage;
  }
  // Before anything that could print a conninfo or property, and before other threads start.
  const Redactor redactor = SecretsOf(*config);
  log::SetSecrets(redactor);
  if (options.command == "check") {
    CheckResults results = {Pass("config", options.config_path)};
    if (!options.offline) {
      CheckResults servers = CheckServers(*config);
      results.insert(results.end(), servers.begin(), servers.end());
    }
    PrintResults(results, redactor, stdout);
    return CheckExitCode(results);
  }
  if (options.command == "slot") {
    return SlotCommand(*config, options.slot_action, options.yes, stdout);
  }
  return RunDaemon(*config, {.version = OUTBOXD_VERSION, .commit = OUTBOXD_COMMIT});
}

}  // namespace
}  // namespace outboxd::daemon

int main(int argc, char** argv) {
  using namespace outboxd::daemon;
  absl::StatusOr<Options> options = ParseArgs(argc, argv);
  if (!options.ok()) {
    std::fprintf(stderr, "outboxd: %s\n%s", std::string(options.status().message()).c_str(),
                 kUsage.data());
    return kExitUsage;
  }
  if (options->command == "version") {
    std::printf("outboxd %s\n", OUTBOXD_VERSION);
    return kExitOk;
  }
  return Main(*options);
}
