#include "common/log.h"

#include <unistd.h>

#include <atomic>
#include <ctime>
#include <string>

#include "common/json_string.h"

namespace outboxd::log {
namespace {

std::atomic<Level> min_level{Level::kInfo};
std::atomic<Format> format_setting{Format::kText};
// Written once by SetSecrets before other threads start; read-only afterwards.
Redactor& GlobalRedactor() {
  static Redactor* redactor = new Redactor();  // Never destroyed: threads may log at exit.
  return *redactor;
}

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

std::string_view JsonLevelName(Level level) {
  switch (level) {
    case Level::kDebug:
      return "debug";
    case Level::kInfo:
      return "info";
    case Level::kWarn:
      return "warn";
    case Level::kError:
      return "error";
  }
  return "?";
}

std::string Timestamp(std::chrono::system_clock::time_point when) {
  const std::time_t secs = std::chrono::system_clock::to_time_t(when);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(when.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
}

}  // namespace

void SetMinLevel(Level level) { min_level.store(level, std::memory_order_relaxed); }

void SetFormat(Format format) { format_setting.store(format, std::memory_order_relaxed); }

void SetSecrets(Redactor redactor) { GlobalRedactor() = std::move(redactor); }

bool Enabled(Level level) { return level >= min_level.load(std::memory_order_relaxed); }

bool ParseLevel(std::string_view text, Level& level) {
  for (Level l : {Level::kDebug, Level::kInfo, Level::kWarn, Level::kError}) {
    if (text == JsonLevelName(l)) {
      level = l;
      return true;
    }
  }
  return false;
}

bool ParseFormat(std::string_view text, Format& format) {
  if (text == "text") {
    format = Format::kText;
  } else if (text == "json") {
    format = Format::kJson;
  } else {
    return false;
  }
  return true;
}

std::string FormatLine(Format format, Level level, std::chrono::system_clock::time_point when,
                       std::string_view message, const Redactor& redactor) {
  const std::string scrubbed = redactor.Scrub(message);
  if (format == Format::kText) {
    return fmt::format("{} {} {}\n", Timestamp(when), LevelName(level), scrubbed);
  }
  std::string line =
      fmt::format(R"({{"ts":"{}","level":"{}","msg":)", Timestamp(when), JsonLevelName(level));
  AppendJsonString(line, scrubbed);
  line.append("}\n");
  return line;
}

void Write(Level level, std::string_view message) {
  const std::string line = FormatLine(format_setting.load(std::memory_order_relaxed), level,
                                      std::chrono::system_clock::now(), message, GlobalRedactor());
  // A short write to stderr is not worth retrying; losing a log line must not stop the relay.
  [[maybe_unused]] ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
}

}  // namespace outboxd::log
