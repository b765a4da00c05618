#include "common/check_result.h"

namespace outboxd {
namespace {

std::string_view OutcomeName(CheckOutcome outcome) {
  switch (outcome) {
    case CheckOutcome::kPass:
      return "PASS";
    case CheckOutcome::kWarn:
      return "WARN";
    case CheckOutcome::kFail:
      return "FAIL";
  }
  return "FAIL";
}

}  // namespace

std::string FormatCheckLine(const CheckResult& result) {
  std::string line(OutcomeName(result.outcome));
  line.append(" ").append(result.name).append(": ").append(result.detail);
  if (result.outcome != CheckOutcome::kPass && !result.fix.empty()) {
    line.append("; ").append(result.fix);
  }
  // libpq's multi-line messages ("...failed: Connection refused\n\tIs the server running")
  // become one line: each run of line breaks and tabs turns into one space.
  std::string out;
  for (char c : line) {
    const bool blank = c == '\n' || c == '\r' || c == '\t';
    if (!blank) {
      out.push_back(c);
    } else if (!out.empty() && out.back() != ' ') {
      out.push_back(' ');
    }
  }
  return out;
}

}  // namespace outboxd
