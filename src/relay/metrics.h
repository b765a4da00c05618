#pragma once
// Counters an operator reads to know the relay is healthy. Touched only on the loop thread.

#include <cstdint>

#include "common/types.h"

namespace outboxd::relay {

struct Metrics {
  uint64_t events_published = 0;      // Records Kafka acknowledged (dead letters included).
  uint64_t events_dead_lettered = 0;  // Rows sent to the dead-letter topic instead.
  uint64_t transactions = 0;          // Commits seen.
  uint64_t rows_ignored = 0;          // Changes to tables outside the outbox set.
  uint64_t restarts = 0;              // Pipeline restarts from the confirmed LSN.
  Lsn confirmed_lsn;                  // Last flush position sent to Postgres.
};

}  // namespace outboxd::relay
