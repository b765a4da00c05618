#include "support/faults.h"

#include <cstdlib>
#include <iostream>

#include "absl/time/clock.h"
#include "fmt/format.h"

namespace outboxd::chaos {
namespace {

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace

absl::StatusOr<absl::Duration> RunServiceScript(const it::TestEnv& env, const std::string& tool,
                                                const std::string& verb,
                                                const std::string& log_path) {
  const std::string command =
      fmt::format("{} {} {} >>{} 2>&1", ShellQuote(env.scripts_dir + "/" + tool), verb,
                  ShellQuote(env.services_dir), ShellQuote(log_path));
  const absl::Time t0 = absl::Now();
  const int rc = std::system(command.c_str());
  const absl::Duration took = absl::Now() - t0;
  if (rc != 0) {
    return absl::InternalError(
        fmt::format("`{} {}` failed (status {}); its output is in {}", tool, verb, rc, log_path));
  }
  return took;
}

Services::~Services() {
  const absl::Status restored = Restore();
  if (!restored.ok()) std::cerr << "chaos: could not restore the services: " << restored << "\n";
}

absl::StatusOr<absl::Duration> Services::Run(const std::string& tool, const std::string& verb) {
  return RunServiceScript(env_, tool, verb, log_path_);
}

absl::StatusOr<absl::Duration> Services::KafkaKill() {
  kafka_down_ = true;
  return Run("kafka", "kill");
}
absl::StatusOr<absl::Duration> Services::KafkaStop() {
  kafka_down_ = true;  // Even a failed stop may have half-stopped it: always try to start.
  return Run("kafka", "stop");
}
absl::StatusOr<absl::Duration> Services::KafkaStart() {
  absl::StatusOr<absl::Duration> took = Run("kafka", "start");
  if (took.ok()) kafka_down_ = false;
  return took;
}
absl::StatusOr<absl::Duration> Services::PgStop() {
  pg_down_ = true;
  return Run("pg", "stop");
}
absl::StatusOr<absl::Duration> Services::PgStart() {
  absl::StatusOr<absl::Duration> took = Run("pg", "start");
  if (took.ok()) pg_down_ = false;
  return took;
}
absl::StatusOr<absl::Duration> Services::PgRestartImmediate() {
  pg_down_ = true;
  absl::StatusOr<absl::Duration> took = Run("pg", "restart-immediate");
  if (took.ok()) pg_down_ = false;
  return took;
}

absl::Status Services::Restore() {
  absl::Status result = absl::OkStatus();
  if (kafka_down_) {
    absl::StatusOr<absl::Duration> took = KafkaStart();
    if (!took.ok()) result = took.status();
  }
  if (pg_down_) {
    absl::StatusOr<absl::Duration> took = PgStart();
    if (!took.ok()) result = took.status();
  }
  return result;
}

absl::StatusOr<int64_t> TerminateWalsender(it::PgClient& admin, const std::string& slot) {
  return admin.QueryInt(
      "SELECT count(pg_terminate_backend(r.pid)) FROM pg_stat_replication r "
      "JOIN pg_replication_slots s ON s.active_pid = r.pid "
      "WHERE r.application_name = 'outboxd' AND s.slot_name = $1",
      {slot});
}

absl::StatusOr<it::PgClient> ConnectWithRetry(const std::string& conninfo, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    absl::StatusOr<it::PgClient> client = it::PgClient::Connect(conninfo);
    if (client.ok() || absl::Now() >= deadline) return client;
    absl::SleepFor(absl::Milliseconds(200));
  }
}

}  // namespace outboxd::chaos
