#include "support/proc_memory.h"

#include <chrono>
#include <fstream>
#include <string>

namespace outboxd::chaos {
namespace {

// "VmHWM:\t   12345 kB" → 12345.
bool ParseKb(const std::string& line, const char* name, int64_t& out) {
  const std::string prefix = std::string(name) + ":";
  if (line.rfind(prefix, 0) != 0) return false;
  try {
    out = std::stoll(line.substr(prefix.size()));
  } catch (...) {
    return false;
  }
  return true;
}

void RaiseTo(std::atomic<int64_t>& peak, int64_t value) {
  int64_t seen = peak.load();
  while (value > seen && !peak.compare_exchange_weak(seen, value)) {
  }
}

}  // namespace

std::optional<ProcMemory> ReadProcMemory(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  if (!status) return std::nullopt;
  ProcMemory memory;
  bool hwm = false;
  bool rss = false;
  std::string line;
  while (std::getline(status, line)) {
    hwm = hwm || ParseKb(line, "VmHWM", memory.hwm_kb);
    rss = rss || ParseKb(line, "VmRSS", memory.rss_kb);
  }
  if (!hwm || !rss) return std::nullopt;
  return memory;
}

MemorySampler::MemorySampler(pid_t pid, int period_ms) : pid_(pid) {
  thread_ = std::thread([this, period_ms] {
    while (!stop_) {
      Sample();
      std::this_thread::sleep_for(std::chrono::milliseconds(period_ms));
    }
  });
}

MemorySampler::~MemorySampler() {
  stop_ = true;
  thread_.join();
}

void MemorySampler::Sample() {
  const std::optional<ProcMemory> memory = ReadProcMemory(pid_);
  if (!memory.has_value()) return;
  RaiseTo(peak_hwm_kb_, memory->hwm_kb);
  RaiseTo(peak_rss_kb_, memory->rss_kb);
  ++samples_;
}

int64_t MemorySampler::PeakHwmKb() {
  Sample();
  return peak_hwm_kb_;
}

}  // namespace outboxd::chaos
