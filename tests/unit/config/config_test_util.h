#pragma once
// Helpers shared by the config tests: parse with a fake environment, get an error's text.

#include <map>
#include <string>
#include <string_view>

#include "config/config.h"
#include "gtest/gtest.h"

namespace outboxd::config::testing {

// The smallest file that parses; tests append or replace sections.
inline constexpr std::string_view kMinimal = R"(
[postgres]
conninfo = "host=127.0.0.1 dbname=app user=outboxd"
tables = ["public.outbox"]

[kafka]
"bootstrap.servers" = "127.0.0.1:9092"
)";

inline Environment FakeEnv(std::map<std::string, std::string, std::less<>> vars = {}) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

inline absl::StatusOr<Config> Parse(std::string_view text, const Environment& env = FakeEnv()) {
  return ParseConfig(text, "outboxd.toml", env);
}

// The InvalidArgument message for `text`, or a marker that makes the calling expectation fail.
inline std::string ErrorOf(std::string_view text, const Environment& env = FakeEnv()) {
  absl::StatusOr<Config> config = Parse(text, env);
  if (config.ok()) return "<parsed without error>";
  EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(config.status().message());
}

// kMinimal plus `extra` (usually more sections).
inline std::string WithMinimal(std::string_view extra) {
  return std::string(kMinimal) + std::string(extra);
}

// The [outbox] config of kMinimal plus an [outbox] section holding `section`; a default
// OutboxConfig (and a failed expectation) if it does not parse.
inline OutboxConfig ParseOutbox(std::string_view section) {
  absl::StatusOr<Config> config =
      Parse(WithMinimal(std::string("[outbox]\n") + std::string(section)));
  EXPECT_TRUE(config.ok()) << config.status();
  return config.ok() ? config->outbox : OutboxConfig{};
}

}  // namespace outboxd::config::testing
