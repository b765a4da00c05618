#pragma once
// `outboxd run`: the relay, until SIGTERM/SIGINT.

#include "config/config.h"
#include "metrics/prometheus_text.h"

namespace outboxd::daemon {

struct RunFlags {
  bool allow_new_slot = false;  // --allow-new-slot: override the failover checks once.
};

// Runs the relay with `config` until a stop signal, with the status server ([http]), the
// WAL guard and the position record (position/) beside it; returns the process exit code
// (exit_codes.h). `build` is logged at start-up and exported as outboxd_build_info.
int RunDaemon(const config::Config& config, const metrics::BuildInfo& build,
              const RunFlags& flags = {});

}  // namespace outboxd::daemon
