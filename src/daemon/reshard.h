#pragma once
// Resharding at start-up: when [postgres] parallel_slots differs from the slots that exist, the
// stream moves to the new count before the relay starts, losing and reordering nothing
// (pg/reshard.h has the procedure, docs/operating.md "Resharding" the operator's view).

#include <functional>

#include "absl/status/status.h"
#include "common/types.h"
#include "config/config.h"
#include "relay/stop_signal.h"

namespace outboxd::daemon {

// Runs the relay over the slot family `config` names up to the cut (RelayContext::stop_at).
using RunToCut = std::function<absl::Status(const config::Config& family, Lsn cut)>;

// Runs every hop PlanReshardStep gives until the family of `config` is the one that exists;
// OK at once when it is (or when there is none yet). Each hop creates the target slots, runs
// the source family to the cut through `run_to_cut`, then drops it. `checked` says whether it
// could look: when Postgres is unreachable before anything started it returns OK with
// `checked` false, so the relay waits for Postgres as usual; once a hop is under way it
// retries with back-off. Returns early, OK, when `stop` is requested: the next start goes on
// where this one stopped.
absl::Status Reshard(const config::Config& config, const RunToCut& run_to_cut,
                     relay::StopSignal& stop, bool& checked);

}  // namespace outboxd::daemon
