#pragma once
// What this binary is and runs with, for `outboxd version` and the outboxd_build_info metric.

#include <string>

#include "metrics/prometheus_text.h"

namespace outboxd::daemon {

// outboxd's `version` and `commit` (the build's, from git) with the versions of librdkafka and
// libpq loaded at run time and of simdjson as compiled in (its headers name no run-time call).
metrics::BuildInfo CurrentBuild(std::string version, std::string commit);

// `outboxd version`'s text: "outboxd VERSION (commit COMMIT)", then one "LIBRARY VERSION" line
// each for librdkafka, libpq and simdjson.
std::string VersionText(const metrics::BuildInfo& build);

}  // namespace outboxd::daemon
