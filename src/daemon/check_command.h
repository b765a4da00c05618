#pragma once
// `outboxd check`: the config file, then the live Postgres and Kafka, one line per check.

#include <cstdio>

#include "common/check_result.h"
#include "common/redact.h"
#include "config/config.h"

namespace outboxd::daemon {

// Runs every server and broker check for `config` (nothing is created or changed).
CheckResults CheckServers(const config::Config& config);

// Prints each result as FormatCheckLine, scrubbed by `redactor`, to `out`.
void PrintResults(const CheckResults& results, const Redactor& redactor, std::FILE* out);

// 0 when no result is a FAIL; otherwise the code of the first FAIL: kExitPermission (4) for
// authentication or privileges, kExitServerSetup (3) for anything else.
int CheckExitCode(const CheckResults& results);

}  // namespace outboxd::daemon
