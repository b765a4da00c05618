#pragma once
// The faults the chaos tests inject, through the service scripts scripts/test uses.

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "harness/env.h"
#include "harness/pg_client.h"

namespace outboxd::chaos {

// Runs `$OUTBOXD_TEST_SCRIPTS/<tool> <verb> $OUTBOXD_TEST_SERVICES_DIR` (tool: "kafka" or
// "pg"), its output appended to `log_path`. Returns how long it took; Internal if it failed.
absl::StatusOr<absl::Duration> RunServiceScript(const it::TestEnv& env, const std::string& tool,
                                                const std::string& verb,
                                                const std::string& log_path);

// Keeps track of what a test stopped and restarts it, whatever happens, when destroyed, so a
// failing scenario never leaves the broker or Postgres down for the tests after it.
class Services {
 public:
  Services(const it::TestEnv& env, std::string log_path)
      : env_(env), log_path_(std::move(log_path)) {}
  ~Services();
  Services(const Services&) = delete;
  Services& operator=(const Services&) = delete;

  absl::StatusOr<absl::Duration> KafkaKill();   // SIGKILL of the broker
  absl::StatusOr<absl::Duration> KafkaStop();   // SIGTERM, clean shut-down
  absl::StatusOr<absl::Duration> KafkaStart();  // same port and data; waits for metadata
  absl::StatusOr<absl::Duration> PgStop();      // pg_ctl stop -m fast
  absl::StatusOr<absl::Duration> PgStart();
  absl::StatusOr<absl::Duration> PgRestartImmediate();  // pg_ctl stop -m immediate; start

  // Starts whatever is still stopped.
  absl::Status Restore();

 private:
  absl::StatusOr<absl::Duration> Run(const std::string& tool, const std::string& verb);

  const it::TestEnv& env_;
  std::string log_path_;
  bool kafka_down_ = false;
  bool pg_down_ = false;
};

// pg_terminate_backend of the walsender that streams `slot` for outboxd (application_name
// 'outboxd'). Returns how many backends were terminated (0 when none streams it).
absl::StatusOr<int64_t> TerminateWalsender(it::PgClient& admin, const std::string& slot);

// Connects with `conninfo`, retrying for up to `timeout` (Postgres may be restarting).
absl::StatusOr<it::PgClient> ConnectWithRetry(const std::string& conninfo, absl::Duration timeout);

}  // namespace outboxd::chaos
