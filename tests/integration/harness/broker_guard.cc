#include "harness/broker_guard.h"

#include <cstdlib>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"

namespace outboxd::it {
namespace {

std::string ShellQuote(absl::string_view s) {
  return absl::StrCat("'", absl::StrReplaceAll(s, {{"'", "'\\''"}}), "'");
}

}  // namespace

BrokerGuard::~BrokerGuard() {
  if (!stopped_) return;
  const absl::Status started = Start();
  if (!started.ok()) std::cerr << "BrokerGuard: could not restart the broker: " << started << "\n";
}

absl::Status BrokerGuard::Stop() {
  stopped_ = true;  // Even a failed stop may have half-stopped it: always try to start.
  return Run("stop");
}

absl::Status BrokerGuard::Start() {
  absl::Status status = Run("start");
  if (status.ok()) stopped_ = false;
  return status;
}

absl::Status BrokerGuard::Run(const std::string& verb) {
  const std::string command = absl::StrCat(ShellQuote(env_.scripts_dir + "/kafka"), " ", verb, " ",
                                           ShellQuote(env_.services_dir));
  const absl::Time t0 = absl::Now();
  const int rc = std::system(command.c_str());
  std::cout << "[broker] `kafka " << verb << "` took " << absl::FormatDuration(absl::Now() - t0)
            << "\n";
  if (rc != 0) return absl::InternalError(absl::StrCat(command, " failed (status ", rc, ")"));
  return absl::OkStatus();
}

}  // namespace outboxd::it
