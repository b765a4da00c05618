#pragma once
// The summary table: each scenario appends one row to a file (ctest runs every test in its
// own process), and `chaos_summary print` renders the file after the last scenario.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace outboxd::chaos {

struct SummaryRow {
  std::string scenario;
  int64_t faults = 0;
  int64_t events = 0;      // committed events
  int64_t received = 0;    // records read back
  int64_t missing = 0;     // committed, never received (must be 0)
  int64_t duplicates = 0;  // received more than once (allowed, reported)
  int64_t reorders = 0;    // first occurrences out of per-aggregate commit order (must be 0)
  int64_t unexpected = 0;  // rolled back, unknown, or dead-lettered (must be 0)
  double seconds = 0;      // wall time of the scenario
  double peak_rss_mb = 0;  // outboxd's VmHWM (highest over its processes); 0 if not measured
  std::string note;        // one line
};

// The file rows go to: $OUTBOXD_CHAOS_SUMMARY, else ./chaos-summary.tsv.
std::string SummaryPath();

// Appends `row` to SummaryPath() (best effort: a failure is reported on stderr).
void AppendSummaryRow(const SummaryRow& row);

// Rows of the file at `path` (none if it does not exist).
absl::StatusOr<std::vector<SummaryRow>> ReadSummary(const std::string& path);

// A fixed-width text table, one line per row, notes below.
std::string RenderSummary(const std::vector<SummaryRow>& rows);

}  // namespace outboxd::chaos
