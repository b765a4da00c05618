#pragma once
// One line of `outboxd check`: what was checked, what was found and, unless it passed, what to
// do. Produced by the pg and kafka modules, printed and turned into an exit code by daemon.

#include <string>
#include <vector>

namespace outboxd {

enum class CheckOutcome { kPass, kWarn, kFail };

struct CheckResult {
  CheckOutcome outcome = CheckOutcome::kPass;
  std::string name;    // e.g. "wal_level", "table public.outbox"
  std::string detail;  // What was found.
  std::string fix;     // What to do about it; empty for PASS.
  // A FAIL caused by authentication or missing privileges (exit code 4 rather than 3).
  bool permission = false;
};

using CheckResults = std::vector<CheckResult>;

inline CheckResult Pass(std::string name, std::string detail) {
  return {CheckOutcome::kPass, std::move(name), std::move(detail), "", false};
}
inline CheckResult Warn(std::string name, std::string detail, std::string fix) {
  return {CheckOutcome::kWarn, std::move(name), std::move(detail), std::move(fix), false};
}
inline CheckResult Fail(std::string name, std::string detail, std::string fix,
                        bool permission = false) {
  return {CheckOutcome::kFail, std::move(name), std::move(detail), std::move(fix), permission};
}

// "PASS wal_level: logical" or "FAIL wal_level: replica; set wal_level = logical ...". Runs of
// line breaks and tabs inside detail or fix become one space, so one check is one line.
std::string FormatCheckLine(const CheckResult& result);

}  // namespace outboxd
