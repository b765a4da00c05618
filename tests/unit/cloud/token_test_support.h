#pragma once
// The fixed inputs of tests/unit/cloud/reference_tokens.py, shared by the token tests.

#include <chrono>
#include <string>

#include "cloud/aws_credentials.h"
#include "cloud/aws_encoding.h"

namespace outboxd::cloud::testing {

inline constexpr char kReferenceSessionToken[] = "IQoJb3JpZ2luX2VjEXAMPLE/token+with=specials";

inline AwsCredentials ReferenceCredentials(std::string session_token = "") {
  return {"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", std::move(session_token),
          std::nullopt, "test"};
}

// reference_tokens.py's FROZEN, 2026-12-07T18:00:00Z.
inline std::chrono::system_clock::time_point ReferenceTime() {
  std::chrono::system_clock::time_point time;
  ParseIso8601("2026-12-07T18:00:00Z", &time);
  return time;
}

}  // namespace outboxd::cloud::testing
