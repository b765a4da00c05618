#pragma once
// Stops and starts the test broker (scripts/kafka stop|start), for tests of a Kafka outage.

#include <string>

#include "absl/status/status.h"
#include "harness/env.h"

namespace outboxd::it {

// Starts the broker again when asked or, whatever happened, when destroyed, so a failing
// test never leaves the broker down for the tests after it. `env` must outlive the guard.
class BrokerGuard {
 public:
  explicit BrokerGuard(const TestEnv& env) : env_(env) {}
  ~BrokerGuard();
  BrokerGuard(const BrokerGuard&) = delete;
  BrokerGuard& operator=(const BrokerGuard&) = delete;

  absl::Status Stop();
  absl::Status Start();

 private:
  absl::Status Run(const std::string& verb);

  const TestEnv& env_;
  bool stopped_ = false;
};

}  // namespace outboxd::it
