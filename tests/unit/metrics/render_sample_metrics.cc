// Prints the /metrics page of a fully populated RelayMetrics, for `promtool check metrics`
// (tests/unit/metrics/CMakeLists.txt).

#include <cstdio>

#include "metrics/prometheus_text.h"
#include "sample_metrics.h"

int main() {
  using namespace outboxd::metrics;
  RelayMetrics m;
  testing::Populate(m);
  const Health::Snapshot health = testing::SampleHealth();
  const std::string text = RenderPrometheus(m, testing::SampleBuild(), &health);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return std::fflush(stdout) == 0 ? 0 : 1;
}
