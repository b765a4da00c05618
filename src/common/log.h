#pragma once
// Minimal structured logging to stderr: one line per event, timestamped, level-tagged, as text
// or as one JSON object per line ({"ts":...,"level":...,"msg":...}) for log shippers.
// Operators grep these at 3 a.m.: every error line names the cause and the fix.
// Every line passes through the Redactor given to SetSecrets, so no secret reaches the log.

#include <chrono>
#include <string>
#include <string_view>

#include "common/redact.h"
#include "fmt/format.h"

namespace outboxd::log {

enum class Level { kDebug, kInfo, kWarn, kError };
enum class Format { kText, kJson };

// Set once at start-up, before other threads log (they read these without locks).
// Lines below `level` are dropped.
void SetMinLevel(Level level);
void SetFormat(Format format);
// Secret values to scrub from every line (see Redactor).
void SetSecrets(Redactor redactor);
bool Enabled(Level level);

// "debug", "info", "warn", "error" -> Level; false for anything else.
bool ParseLevel(std::string_view text, Level& level);
// "text", "json" -> Format; false for anything else.
bool ParseFormat(std::string_view text, Format& format);

// The complete line (newline included) for `message` logged at `when`, after scrubbing with
// `redactor`. Text: "2026-01-02T03:04:05.678Z INFO message"; JSON:
// {"ts":"2026-01-02T03:04:05.678Z","level":"info","msg":"message"}.
std::string FormatLine(Format format, Level level, std::chrono::system_clock::time_point when,
                       std::string_view message, const Redactor& redactor);

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
  if (Enabled(Level::kWarn)) Write(Level::kWarn, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void Error(fmt::format_string<Args...> f, Args&&... args) {
  if (Enabled(Level::kError)) Write(Level::kError, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace outboxd::log
