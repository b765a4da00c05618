#pragma once
// The Amazon RDS / Aurora IAM database authentication token, made as botocore's
// generate_db_auth_token makes it: a SigV4-presigned `https://<host>:<port>/?Action=connect&
// DBUser=<user>` (service rds-db, 900 s) without its "https://". Postgres takes it as the
// password of one connection attempt within those 15 minutes (TLS required). Pure;
// thread-safe.

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "cloud/aws_credentials.h"

namespace outboxd::cloud {

inline constexpr std::chrono::seconds kRdsTokenLifetime{900};

struct RdsTokenTarget {
  std::string host;  // The endpoint name the client connects to, as in conninfo `host`.
  uint16_t port = 5432;
  std::string user;  // The database role, granted rds_iam.
  std::string region;
};

// The token (a secret: never logged) for `target`, signed at `now`. InvalidArgument naming the
// fix when the host, user or region is missing or the credentials are incomplete.
absl::StatusOr<std::string> MakeRdsAuthToken(const AwsCredentials& credentials,
                                             const RdsTokenTarget& target,
                                             std::chrono::system_clock::time_point now);

}  // namespace outboxd::cloud
