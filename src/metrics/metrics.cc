#include "metrics/metrics.h"

#include <algorithm>

namespace outboxd::metrics {

Histogram::Histogram(std::vector<double> upper_bounds)
    : upper_bounds_(std::move(upper_bounds)),
      buckets_(std::make_unique<std::atomic<uint64_t>[]>(upper_bounds_.size() + 1)) {}

void Histogram::Observe(double v) {
  const auto it = std::lower_bound(upper_bounds_.begin(), upper_bounds_.end(), v);
  buckets_[static_cast<size_t>(it - upper_bounds_.begin())].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(v, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::Read() const {
  Snapshot s{.upper_bounds = upper_bounds_, .cumulative_counts = {}, .sum = 0, .count = 0};
  uint64_t running = 0;
  for (size_t i = 0; i <= upper_bounds_.size(); ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    s.cumulative_counts.push_back(running);
  }
  s.count = running;
  s.sum = sum_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace outboxd::metrics
