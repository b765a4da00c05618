#pragma once
// Minimal structured logging to stderr: one line per event, timestamped, level-tagged.
// Operators grep these at 3 a.m.: every error line names the cause and the fix.

#include <string_view>

#include "fmt/format.h"

namespace outboxd::log {

enum class Level { kDebug, kInfo, kWarn, kError };

// Lines below `level` are dropped. Set once at start-up, before other threads log.
void SetMinLevel(Level level);
bool Enabled(Level level);
// Writes one line atomically (a single write(2)), so librdkafka's threads cannot interleave.
void Write(Level level, std::string_view message);

template <typename... Args>
void Debug(fmt::format_string<Args...> f, Args&&... args) {
  if (Enabled(Level::kDebug)) Write(Level::kDebug, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void Info(fmt::format_string<Args...> f, Args&&... args) {
  if (Enabled(Level::kInfo)) Write(Level::kInfo, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void Warn(fmt::format_string<Args...> f, Args&&... args) {
  Write(Level::kWarn, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void Error(fmt::format_string<Args...> f, Args&&... args) {
  Write(Level::kError, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace outboxd::log
