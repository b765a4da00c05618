#include "support/proc_memory.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
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

// Start time of the process (clock ticks since boot), field 22 of /proc/<pid>/stat; -1 if gone.
int64_t StartTime(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return -1;
  const size_t paren = text.rfind(')');  // the command name may contain spaces
  if (paren == std::string::npos) return -1;
  std::istringstream fields(text.substr(paren + 2));  // field 3 onwards
  std::string field;
  for (int i = 3; i <= 22; ++i) {
    if (!(fields >> field)) return -1;
  }
  try {
    return std::stoll(field);
  } catch (...) {
    return -1;
  }
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

MemorySampler::MemorySampler(pid_t pid, const std::string& executable, int period_ms) : pid_(pid) {
  std::error_code ec;
  executable_ = std::filesystem::canonical(executable, ec).string();
  if (ec) executable_ = executable;
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
  // The sampler thread and PeakHwmKb's caller may both sample.
  static std::mutex mu;
  const std::lock_guard<std::mutex> lock(mu);
  if (gone_) return;
  std::error_code ec;
  const std::filesystem::path exe =
      std::filesystem::read_symlink("/proc/" + std::to_string(pid_) + "/exe", ec);
  if (ec || exe.string() != executable_) {
    if (start_time_ >= 0) gone_ = true;  // It ran outboxd before: that process has ended.
    return;
  }
  const int64_t start = StartTime(pid_);
  if (start_time_ < 0) start_time_ = start;
  if (start != start_time_) {
    gone_ = true;
    return;
  }
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
