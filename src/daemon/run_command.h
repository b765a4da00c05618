#pragma once
// `outboxd run`: the relay, until SIGTERM/SIGINT.

#include "config/config.h"
#include "metrics/prometheus_text.h"

namespace outboxd::daemon {

// Runs the relay with `config` until a stop signal, with the status server ([http]) and the
// WAL guard beside it; returns the process exit code (exit_codes.h). `build` is logged at
// start-up and exported as outboxd_build_info.
int RunDaemon(const config::Config& config, const metrics::BuildInfo& build);

}  // namespace outboxd::daemon
