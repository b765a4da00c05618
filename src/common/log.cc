#include "common/log.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <string>

namespace outboxd::log {
namespace {

std::atomic<Level> min_level{Level::kInfo};

std::string_view LevelName(Level level) {
  switch (level) {
    case Level::kDebug:
      return "DEBUG";
    case Level::kInfo:
      return "INFO";
    case Level::kWarn:
      return "WARN";
    case Level::kError:
      return "ERROR";
  }
  return "?";
}

}  // namespace

void SetMinLevel(Level level) { min_level.store(level, std::memory_order_relaxed); }

bool Enabled(Level level) { return level >= min_level.load(std::memory_order_relaxed); }

void Write(Level level, std::string_view message) {
  const auto now = std::chrono::system_clock::now();
  const std::time_t secs = std::chrono::system_clock::to_time_t(now);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  std::string line = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z {} {}\n",
                                 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                                 tm.tm_min, tm.tm_sec, millis, LevelName(level), message);
  // A short write to stderr is not worth retrying; losing a log line must not stop the relay.
  [[maybe_unused]] ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
}

}  // namespace outboxd::log
