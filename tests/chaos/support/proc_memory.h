#pragma once
// Resident memory of a process, from /proc/<pid>/status.

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
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
//
// Only the process that runs `executable` counts: not the forked child before its exec (it
// still shares, and is charged for, the test's own pages), and not a later process that
// reuses the pid after this one was reaped (its start time differs).
class MemorySampler {
 public:
  MemorySampler(pid_t pid, const std::string& executable, int period_ms = 100);
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
  std::string executable_;   // canonical path
  int64_t start_time_ = -1;  // field 22 of /proc/<pid>/stat, once the exec is seen
  std::atomic<bool> gone_{false};
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> peak_hwm_kb_{0};
  std::atomic<int64_t> peak_rss_kb_{0};
  std::atomic<int64_t> samples_{0};
  std::thread thread_;
};

}  // namespace outboxd::chaos
