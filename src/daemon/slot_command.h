#pragma once
// `outboxd slot status|create|drop`: the replication slot by hand, for operators.

#include <cstdio>
#include <string_view>

#include "config/config.h"

namespace outboxd::daemon {

// `action` is status, create or drop; `confirmed` is --yes (drop refuses without it). Prints
// to `out`, errors through the log. Returns the exit code: 0 done; 3 the slot does not exist
// (status, drop) or is active (drop); 2 drop without --yes; others as ExitCodeFor.
int SlotCommand(const config::Config& config, std::string_view action, bool confirmed,
                std::FILE* out);

}  // namespace outboxd::daemon
