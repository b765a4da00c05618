#pragma once
// The keys each section of the config file accepts, as the section readers check them; the
// documentation check (tests/docs) compares them with docs/configuration.md.

#include <string_view>
#include <vector>

#include "absl/types/span.h"

namespace outboxd::config {

struct SectionKeys {
  std::string_view section;  // "postgres", without brackets.
  absl::Span<const std::string_view> keys;
};

// Every section but [kafka], which passes any librdkafka property through. The views point
// into static storage.
std::vector<SectionKeys> AcceptedKeys();

}  // namespace outboxd::config
