#pragma once
// Resident memory of a process, from /proc/<pid>/status.

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <thread>

namespace outboxd::chaos {

struct ProcMemory {
  int64_t hwm_kb = 0;  // VmHWM: peak resident set size over the process's life
  int64_t rss_kb = 0;  // VmRSS: resident set size now
};

// nullopt when the process is gone (or a zombie, which has no Vm* lines).
std::optional<ProcMemory> ReadProcMemory(pid_t pid);

// Samples ReadProcMemory(pid) every `period_ms` on its own thread and keeps the highest VmHWM
// and VmRSS seen, so the figure survives the process's exit. VmHWM is already a peak; the
// sampling only has to catch it before the process ends.
class MemorySampler {
 public:
  explicit MemorySampler(pid_t pid, int period_ms = 100);
  ~MemorySampler();
  MemorySampler(const MemorySampler&) = delete;
  MemorySampler& operator=(const MemorySampler&) = delete;

  // Takes one more sample now (call it just before stopping the process) and returns the peak.
  int64_t PeakHwmKb();
  int64_t PeakRssKb() const { return peak_rss_kb_; }
  int64_t samples() const { return samples_; }

 private:
  void Sample();

  pid_t pid_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> peak_hwm_kb_{0};
  std::atomic<int64_t> peak_rss_kb_{0};
  std::atomic<int64_t> samples_{0};
  std::thread thread_;
};

}  // namespace outboxd::chaos
