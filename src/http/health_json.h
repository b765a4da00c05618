#pragma once
// The JSON bodies of /healthz and /readyz: a short machine-readable account of why.

#include <string>
#include <string_view>

#include "metrics/health.h"

namespace outboxd::http {

// {"status":"alive","version":"...","uptime_seconds":N}
std::string HealthzBody(std::string_view version, double uptime_seconds);

// {"status":"ready"|"not ready","components":{"streaming":{"ok":true,"reason":"..."},
// "producer":{...},"slot":{...}}}
std::string ReadyzBody(const metrics::Health::Snapshot& health);

}  // namespace outboxd::http
