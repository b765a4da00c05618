// [log]: the log level and format from the config file; the flags and OUTBOXD_LOG_* override
// them (the daemon applies that order, see daemon/options.h).

#include <string>

#include "common/log.h"
#include "config/sections.h"

namespace outboxd::config::internal {
namespace {

constexpr std::string_view kLogKeys[] = {"level", "format"};

}  // namespace

absl::Span<const std::string_view> LogKeys() { return kLogKeys; }

absl::Status ReadLog(const SectionReader& reader, LogConfig& out) {
  if (auto s = reader.CheckKnownKeys(kLogKeys); !s.ok()) return s;
  if (reader.Has("level")) {
    std::string text;
    if (auto s = reader.ReadString("level", R"(level = "info")", text); !s.ok()) return s;
    log::Level level;
    if (!log::ParseLevel(text, level)) {
      return reader.Error("level", "is \"" + text + "\"", "use debug, info, warn or error");
    }
    out.level = level;
  }
  if (reader.Has("format")) {
    std::string text;
    if (auto s = reader.ReadString("format", R"(format = "json")", text); !s.ok()) return s;
    log::Format format;
    if (!log::ParseFormat(text, format)) {
      return reader.Error("format", "is \"" + text + "\"", "use text or json");
    }
    out.format = format;
  }
  return absl::OkStatus();
}

}  // namespace outboxd::config::internal
