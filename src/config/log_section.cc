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

// Reads `key` when present into `out` through `parse` (log::ParseLevel or ParseFormat);
// an unknown value names the key and `choices`.
template <typename T>
absl::Status ReadChoice(const SectionReader& reader, std::string_view key, std::string_view example,
                        bool (*parse)(std::string_view, T&), std::string_view choices,
                        std::optional<T>& out) {
  if (!reader.Has(key)) return absl::OkStatus();
  std::string text;
  if (auto s = reader.ReadString(key, example, text); !s.ok()) return s;
  T value;
  if (!parse(text, value)) return reader.Error(key, "is \"" + text + "\"", choices);
  out = value;
  return absl::OkStatus();
}

}  // namespace

absl::Span<const std::string_view> LogKeys() { return kLogKeys; }

absl::Status ReadLog(const SectionReader& reader, LogConfig& out) {
  if (auto s = reader.CheckKnownKeys(kLogKeys); !s.ok()) return s;
  if (auto s = ReadChoice(reader, "level", R"(level = "info")", &log::ParseLevel,
                          "use debug, info, warn or error", out.level);
      !s.ok()) {
    return s;
  }
  return ReadChoice(reader, "format", R"(format = "json")", &log::ParseFormat, "use text or json",
                    out.format);
}

}  // namespace outboxd::config::internal
