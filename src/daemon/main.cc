// outboxd: relays rows inserted into PostgreSQL outbox tables to Kafka through a logical
// replication slot. See README.md.

#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/log.h"
#include "common/status.h"
#include "common/types.h"
#include "config/config.h"
#include "daemon/exit_codes.h"
#include "fmt/ranges.h"
#include "http/status_server.h"
#include "metrics/health.h"
#include "metrics/metrics.h"
#include "pg/slot_monitor.h"
#include "relay/context.h"
#include "relay/supervisor.h"

namespace outboxd::daemon {
namespace {

constexpr std::string_view kUsage =
    "usage: outboxd run   --config FILE [--log-level debug|info|warn|error]\n"
    "       outboxd check --config FILE    validate the config file and exit\n"
    "       outboxd version\n";

struct Options {
  std::string command;
  std::string config_path;
  log::Level level = log::Level::kInfo;
};

bool ParseLevel(std::string_view text, log::Level& level) {
  if (text == "debug")
    level = log::Level::kDebug;
  else if (text == "info")
    level = log::Level::kInfo;
  else if (text == "warn")
    level = log::Level::kWarn;
  else if (text == "error")
    level = log::Level::kError;
  else
    return false;
  return true;
}

bool ParseArgs(int argc, char** argv, Options& options) {
  if (argc < 2) return false;
  options.command = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--config" && i + 1 < argc) {
      options.config_path = argv[++i];
    } else if (arg == "--log-level" && i + 1 < argc) {
      if (!ParseLevel(argv[++i], options.level)) return false;
    } else {
      return false;
    }
  }
  if (options.command == "version") return true;
  return (options.command == "run" || options.command == "check") && !options.config_path.empty();
}

// SIGTERM/SIGINT become readable events on a signalfd that the loop polls, so shutdown is an
// ordinary event on the loop thread rather than an async handler.
int StopSignalFd() {
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  sigprocmask(SIG_BLOCK, &mask, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  return ::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
}

// Serves /metrics, /healthz and /readyz when [http] listen is set. Call after StopSignalFd():
// the server's threads inherit the blocked signal mask, so SIGTERM still reaches the signalfd.
absl::Status StartStatusServer(const config::HttpConfig& config, http::StatusServer& server) {
  if (config.listen.empty()) return absl::OkStatus();
  if (auto s = server.Start(config.listen); !s.ok()) return s;
  log::Info("serving /metrics, /healthz and /readyz on {} (port {})", config.listen, server.port());
  return absl::OkStatus();
}

int Run(const Options& options) {
  log::SetMinLevel(options.level);
  auto config = config::LoadConfig(options.config_path);
  if (!config.ok()) {
    log::Error("{}", MessageOf(config.status()));
    return kExitUsage;
  }
  if (options.command == "check") {
    std::printf("%s: OK\n", options.config_path.c_str());
    return kExitOk;
  }
  const int stop_fd = StopSignalFd();
  if (stop_fd < 0) {
    log::Error("cannot create a signalfd for SIGTERM/SIGINT");
    return kExitFailure;
  }
  std::vector<std::string> tables;
  for (const auto& t : config->postgres.tables) tables.push_back(t.ToString());
  log::Info("outboxd {} starting: tables {}, slot {}, publication {}", OUTBOXD_VERSION,
            fmt::join(tables, ", "), config->postgres.slot, config->postgres.publication);
  // One of each per process; they outlive the relay and the status server that read them.
  metrics::RelayMetrics metrics;
  metrics::Health health;
  http::StatusServer status_server(metrics, health,
                                   {.version = OUTBOXD_VERSION, .commit = OUTBOXD_COMMIT});
  if (auto s = StartStatusServer(config->http, status_server); !s.ok()) {
    // A bad or busy listen address is a configuration problem: exit 2 with the fix.
    log::Error("{}", MessageOf(s));
    ::close(stop_fd);
    return kExitUsage;
  }
  // The WAL guard runs beside the relay for its whole life (README "WAL-safety guard").
  pg::SlotMonitor slot_monitor(
      {.conninfo = config->postgres.conninfo,
       .slot = config->postgres.slot,
       .interval = std::chrono::milliseconds(config->postgres.slot_check_interval_ms),
       .min_safe_wal_size_bytes = int64_t{config->postgres.min_safe_wal_size_mb} << 20},
      metrics, health);
  if (auto s = slot_monitor.Start(); !s.ok()) {
    log::Error("{}", MessageOf(s));
    return kExitFailure;
  }
  SystemClock clock;
  relay::StopSignal stop(stop_fd);
  relay::RelayContext context{.config = *config,
                              .clock = clock,
                              .metrics = metrics,
                              .health = health,
                              .stop = stop,
                              .connectors = relay::LiveConnectors(*config)};
  // A lost slot ends the run with exit 6 (Aborted), whichever stage is busy.
  context.slot_check = [&slot_monitor] {
    return slot_monitor.lost() ? absl::AbortedError(slot_monitor.lost_message()) : absl::OkStatus();
  };
  const absl::Status status = relay::RunRelay(context);
  status_server.Stop();
  slot_monitor.Stop();
  ::close(stop_fd);
  if (!status.ok()) {
    log::Error("{}", MessageOf(status));
    return ExitCodeFor(status);
  }
  log::Info("exiting: {} events published, {} dead-lettered, confirmed {}",
            metrics::Sum(metrics.events_published), metrics::Sum(metrics.dead_lettered),
            Lsn(static_cast<uint64_t>(metrics.confirmed_lsn.value())).ToString());
  return kExitOk;
}

}  // namespace
}  // namespace outboxd::daemon

int main(int argc, char** argv) {
  using namespace outboxd::daemon;
  Options options;
  if (!ParseArgs(argc, argv, options)) {
    std::fputs(kUsage.data(), stderr);
    return kExitUsage;
  }
  if (options.command == "version") {
    std::printf("outboxd %s\n", OUTBOXD_VERSION);
    return kExitOk;
  }
  return Run(options);
}
