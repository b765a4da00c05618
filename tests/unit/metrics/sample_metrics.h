#pragma once
// A RelayMetrics with every metric populated, awkward label values included, shared by the
// render test and the promtool check (render_sample_metrics).

#include "metrics/health.h"
#include "metrics/metrics.h"
#include "metrics/prometheus_text.h"

namespace outboxd::metrics::testing {

// Sets every counter, gauge and histogram of `m` to a known value (see the .cc).
void Populate(RelayMetrics& m);

// Streaming ok, producer down, slot ok.
Health::Snapshot SampleHealth();

inline BuildInfo SampleBuild() {
  return {.version = "0.1.0-3-gabc\"def",
          .commit = "abcdef0",
          .librdkafka = "2.8.0",
          .libpq = "15.18",
          .simdjson = "3.0.1"};
}

}  // namespace outboxd::metrics::testing
