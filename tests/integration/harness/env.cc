#include "harness/env.h"

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#ifndef OUTBOXD_BINARY
#define OUTBOXD_BINARY ""
#endif

namespace outboxd::it {
namespace {

std::string Get(const char* name, std::vector<std::string>& missing) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') {
    missing.emplace_back(name);
    return "";
  }
  return value;
}

}  // namespace

absl::StatusOr<TestEnv> LoadTestEnv() {
  std::vector<std::string> missing;
  TestEnv env;
  env.pg_conninfo = Get("OUTBOXD_TEST_PG_CONNINFO", missing);
  env.pg_admin_conninfo = Get("OUTBOXD_TEST_PG_ADMIN_CONNINFO", missing);
  env.kafka_bootstrap = Get("OUTBOXD_TEST_KAFKA_BOOTSTRAP", missing);
  env.services_dir = Get("OUTBOXD_TEST_SERVICES_DIR", missing);
  env.scripts_dir = Get("OUTBOXD_TEST_SCRIPTS", missing);
  if (!missing.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "integration test environment missing (", absl::StrJoin(missing, ", "),
        "): run the integration tests through scripts/test, which starts Postgres and Kafka "
        "and exports these before running ctest"));
  }
  // OUTBOXD_TEST_OUTBOXD runs the tests against another build (e.g. to see a new test fail
  // on the code before a fix).
  const char* binary = std::getenv("OUTBOXD_TEST_OUTBOXD");
  env.outboxd_binary = (binary != nullptr && *binary != '\0') ? binary : OUTBOXD_BINARY;
  const char* log_dir = std::getenv("OUTBOXD_TEST_LOG_DIR");
  env.log_dir = (log_dir != nullptr && *log_dir != '\0')
                    ? std::string(log_dir)
                    : (std::filesystem::current_path() / "integration-logs").string();
  return env;
}

absl::Status CheckOutboxdBinary(const TestEnv& env) {
  if (env.outboxd_binary.empty()) {
    return absl::FailedPreconditionError(
        "the outboxd target did not exist when CMake configured tests/integration; "
        "re-configure once src/daemon defines it, then run scripts/test");
  }
  if (!std::filesystem::exists(env.outboxd_binary)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "outboxd binary ", env.outboxd_binary, " does not exist: build it (scripts/test does)"));
  }
  return absl::OkStatus();
}

}  // namespace outboxd::it
