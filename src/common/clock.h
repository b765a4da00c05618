#pragma once
// Time as the replication protocol counts it, behind an injectable clock.

#include <chrono>
#include <cstdint>

namespace outboxd {

// Microseconds between the Unix epoch and the Postgres epoch (2000-01-01 UTC).
inline constexpr int64_t kPostgresEpochOffsetMicros = 946'684'800LL * 1'000'000LL;

// Source of "now"; tests substitute a fake so nothing depends on wall time.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual std::chrono::steady_clock::time_point SteadyNow() const = 0;
  // Wall-clock µs since 2000-01-01 UTC, the unit of every protocol timestamp.
  virtual int64_t PostgresNowMicros() const = 0;
};

// The real clock. Thread-safe; stateless.
class SystemClock final : public Clock {
 public:
  std::chrono::steady_clock::time_point SteadyNow() const override {
    return std::chrono::steady_clock::now();
  }
  int64_t PostgresNowMicros() const override {
    const auto since_unix = std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::system_clock::now().time_since_epoch());
    return since_unix.count() - kPostgresEpochOffsetMicros;
  }
};

}  // namespace outboxd
