// outboxd: relays rows inserted into PostgreSQL outbox tables to Kafka through a logical
// replication slot. See README.md and docs/.

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "common/log.h"
#include "common/status.h"
#include "common/strings.h"
#include "config/config.h"
#include "daemon/build_info.h"
#include "daemon/check_command.h"
#include "daemon/cloud_auth.h"
#include "daemon/exit_codes.h"
#include "daemon/options.h"
#include "daemon/run_command.h"
#include "daemon/secrets.h"
#include "daemon/slot_command.h"
#include "debezium_import/debezium_import.h"

namespace outboxd::daemon {
namespace {

// The config file, or the Debezium connector JSON (with --config as its client settings).
absl::StatusOr<config::Config> LoadConfig(const Options& options) {
  if (options.debezium_config_path.empty()) return config::LoadConfig(options.config_path);
  std::vector<std::string> warnings;
  std::optional<std::string> client_settings;
  if (!options.config_path.empty()) client_settings = options.config_path;
  auto config = debezium_import::LoadDebeziumConfig(options.debezium_config_path, client_settings,
                                                    config::ProcessEnvironment(), warnings);
  for (const std::string& warning : warnings) log::Warn("debezium config: {}", warning);
  return config;
}

// Prints the outboxd TOML equivalent to a connector JSON; warnings go to stderr.
int ImportDebezium(const Options& options) {
  auto imported = debezium_import::ImportDebeziumFile(options.debezium_config_path);
  if (!imported.ok()) {
    log::Error("{}", MessageOf(imported.status()));
    return kExitUsage;
  }
  for (const std::string& warning : imported->warnings) log::Warn("{}", warning);
  std::fputs(imported->toml.c_str(), stdout);
  return kExitOk;
}

int Main(Options options) {
  log::SetMinLevel(options.level);
  log::SetFormat(options.format);
  if (options.command == "import-debezium") return ImportDebezium(options);
  auto config = LoadConfig(options);
  if (!config.ok()) {
    log::Error("{}", MessageOf(config.status()));
    return kExitUsage;
  }
  // The file's [log] applies from here on; errors loading it used the flags or environment.
  ApplyConfigLog(config->log.level, config->log.format, options);
  log::SetMinLevel(options.level);
  log::SetFormat(options.format);
  // Before anything that could print a conninfo or property, and before other threads start.
  const Redactor redactor = SecretsOf(*config);
  log::SetSecrets(redactor);
  // `check` prints them as WARN lines instead.
  if (options.command != "check") {
    for (const std::string& warning : config->warnings) log::Warn("config: {}", warning);
  }
  // AWS IAM (MSK, RDS): the hooks go in before any client or connection exists; the provider
  // lives as long as the process.
  static std::unique_ptr<cloud::AwsCredentialsProvider> aws_credentials;
  absl::Status aws_iam = absl::OkStatus();
  if (UsesAwsIam(*config)) {
    aws_credentials = cloud::MakeDefaultCredentialsProvider();
    aws_iam = InstallAwsIam(*config, *aws_credentials, Concat("outboxd/", OUTBOXD_VERSION));
  }
  if (options.command == "check") {
    CheckResults results = {Pass("config", options.debezium_config_path.empty()
                                               ? options.config_path
                                               : options.debezium_config_path)};
    for (const std::string& warning : config->warnings)
      results.push_back(Warn("config", warning, ""));
    // Online, CheckAwsIam reports the same conninfo problems on its own line.
    if (!aws_iam.ok() && options.offline) {
      results.push_back(Fail("postgres iam_auth", std::string(MessageOf(aws_iam)), ""));
    }
    if (!options.offline && aws_credentials != nullptr) {
      CheckResults aws = CheckAwsIam(*config, *aws_credentials);
      results.insert(results.end(), aws.begin(), aws.end());
    }
    if (!options.offline) {
      CheckResults servers = CheckServers(*config);
      results.insert(results.end(), servers.begin(), servers.end());
    }
    PrintResults(results, redactor, stdout);
    return CheckExitCode(results);
  }
  if (!aws_iam.ok()) {
    log::Error("{}", MessageOf(aws_iam));
    return kExitUsage;
  }
  if (options.command == "slot") {
    return SlotCommand(*config, options.slot_action, options.yes, stdout);
  }
  return RunDaemon(*config, CurrentBuild(OUTBOXD_VERSION, OUTBOXD_COMMIT),
                   {.allow_new_slot = options.allow_new_slot});
}

}  // namespace
}  // namespace outboxd::daemon

int main(int argc, char** argv) {
  using namespace outboxd::daemon;
  absl::StatusOr<Options> options = ParseArgs(argc, argv, outboxd::config::ProcessEnvironment());
  if (!options.ok()) {
    std::fprintf(stderr, "outboxd: %s\n%s", std::string(options.status().message()).c_str(),
                 kUsage.data());
    return kExitUsage;
  }
  if (options->command == "help" || options->help) {
    std::fputs(CommandUsage(options->command).data(), stdout);
    return kExitOk;
  }
  if (options->command == "version") {
    std::fputs(VersionText(CurrentBuild(OUTBOXD_VERSION, OUTBOXD_COMMIT)).c_str(), stdout);
    return kExitOk;
  }
  return Main(*options);
}
