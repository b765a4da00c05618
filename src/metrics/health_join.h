#pragma once
// Readiness of several parallel slots as one: each slot's stream and WAL guard report to a
// Health of their own, and the joined Health's streaming and slot components are ready only
// while every slot's are (the reason names the first slot that is not). The producer
// component is not joined: the one producer reports to the joined Health directly.

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "metrics/health.h"

namespace outboxd::metrics {

class HealthJoin {
 public:
  // `target` must outlive the join. `slots` names each part, in order.
  HealthJoin(Health& target, std::vector<std::string> slots);
  HealthJoin(const HealthJoin&) = delete;
  HealthJoin& operator=(const HealthJoin&) = delete;

  // Slot `index`'s own Health; valid for the join's life. Thread-safe, like Health.
  Health& part(size_t index) { return *parts_[index]; }

 private:
  // Observer of part `index`: runs under that part's lock, on the reporting thread.
  void Changed(size_t index, const Health::Snapshot& snapshot);

  Health& target_;
  const std::vector<std::string> slots_;
  std::vector<std::unique_ptr<Health>> parts_;
  absl::Mutex mu_;
  std::vector<Health::Snapshot> latest_ ABSL_GUARDED_BY(mu_);
};

}  // namespace outboxd::metrics
