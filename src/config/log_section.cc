// [log]: the log level and format from the config file; the flags and OUTBOXD_LOG_* override
// them (the daemon applies that order, see daemon/options.h).

#include <optional>
#include <string>
#include <string_view>

#include "common/log.h"
#include "config/sections.h"

namespace outboxd::config::internal {
namespace {

constexpr std::string_view kLogKeys[] = {"level", "format"};

constexpr std::string_view kLevels[] = {"debug", "info", "warn", "error"};
constexpr std::string_view kFormats[] = {"text", "json"};

// Reads `key` when present into `out` through `parse` (log::ParseLevel or ParseFormat), which
// knows the `names`; another spelling of one (e.g. "INFO") is read with a warning. An unknown
// value names the key and `choices`.
template <typename T>
absl::Status ReadChoice(const SectionReader& reader, std::string_view key, std::string_view example,
                        bool (*parse)(std::string_view, T&),
                        absl::Span<const std::string_view> names, std::string_view choices,
                        std::optional<T>& out) {
  if (!reader.Has(key)) return absl::OkStatus();
  std::string text;
  if (auto s = reader.ReadString(key, example, text); !s.ok()) return s;
  T value;
  if (parse(text, value)) {
    out = value;
    return absl::OkStatus();
  }
  for (std::string_view name : names) {
    if (!IsOtherSpelling(text, name) || !parse(name, value)) continue;
    reader.Warn(key, "is \"" + text + "\", read as \"" + std::string(name) + "\": write \"" +
                         std::string(name) + "\"");
    out = value;
    return absl::OkStatus();
  }
  return reader.Error(key, "is \"" + text + "\"", choices);
}

}  // namespace

absl::Span<const std::string_view> LogKeys() { return kLogKeys; }

absl::Status ReadLog(const SectionReader& reader, LogConfig& out) {
  if (auto s = reader.CheckKnownKeys(kLogKeys); !s.ok()) return s;
  if (auto s = ReadChoice(reader, "level", R"(level = "info")", &log::ParseLevel, kLevels,
                          "use debug, info, warn or error", out.level);
      !s.ok()) {
    return s;
  }
  return ReadChoice(reader, "format", R"(format = "json")", &log::ParseFormat, kFormats,
                    "use text or json", out.format);
}

}  // namespace outboxd::config::internal
