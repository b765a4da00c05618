#pragma once
// Where the services under test live, as scripts/test exports it.

#include <string>

#include "absl/status/statusor.h"

namespace outboxd::it {

struct TestEnv {
  std::string pg_conninfo;        // OUTBOXD_TEST_PG_CONNINFO: role outboxd, owns database app
  std::string pg_admin_conninfo;  // OUTBOXD_TEST_PG_ADMIN_CONNINFO: superuser
  std::string kafka_bootstrap;    // OUTBOXD_TEST_KAFKA_BOOTSTRAP
  std::string services_dir;       // OUTBOXD_TEST_SERVICES_DIR
  std::string scripts_dir;        // OUTBOXD_TEST_SCRIPTS: absolute path of scripts/
  std::string outboxd_binary;     // OUTBOXD_TEST_OUTBOXD, else CMake's $<TARGET_FILE:outboxd>
  std::string log_dir;            // OUTBOXD_TEST_LOG_DIR, else ./integration-logs
};

// Reads the environment. FailedPrecondition naming every missing variable and telling the
// reader to run scripts/test.
absl::StatusOr<TestEnv> LoadTestEnv();

// FailedPrecondition unless env.outboxd_binary names an existing file.
absl::Status CheckOutboxdBinary(const TestEnv& env);

}  // namespace outboxd::it
