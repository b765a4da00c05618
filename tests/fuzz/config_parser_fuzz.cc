// libFuzzer entry point for the config parser. Any input must parse to a Config or be refused
// with InvalidArgument; a crash, a sanitizer report, an escaped exception or another status code
// aborts. The environment is empty so only the text decides the outcome.
//
//   ./config_parser_fuzz -max_total_time=30 corpus/

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "config/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // Text that toml++ 3.3.0 would mishandle is refused by ParseConfig itself (toml_guard.h).
  const outboxd::config::Environment no_env = [](std::string_view) -> std::optional<std::string> {
    return std::nullopt;
  };
  const absl::StatusOr<outboxd::config::Config> result =
      outboxd::config::ParseConfig(text, "fuzz.toml", no_env);
  if (!result.ok() && result.status().code() != absl::StatusCode::kInvalidArgument) std::abort();
  return 0;
}
