#pragma once
// Which side a relay failure came from travels in its Status (a payload), not in a member
// string: the supervisor restarts one slot's stream after a Postgres-side failure and
// everything after a Kafka-side one, and labels the restarts metric with the side.

#include <string_view>

#include "absl/status/status.h"

namespace outboxd::relay {

enum class FailureSide { kPostgres, kKafka, kSlot };

// `status` with its side recorded; OK stays OK. A side already recorded is kept: the first
// stage to see a failure knows best where it came from.
absl::Status Blame(FailureSide side, absl::Status status);
// The side recorded by Blame; kPostgres when none was (the stream's own I/O).
FailureSide SideOf(const absl::Status& status);
// "postgres", "kafka" or "slot", as the outboxd_restarts_total label spells it.
std::string_view SideLabel(FailureSide side);

}  // namespace outboxd::relay
