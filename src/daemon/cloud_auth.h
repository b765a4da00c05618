#pragma once
// Wires src/cloud into the two clients' own hooks (DESIGN.md section 8): librdkafka's
// OAUTHBEARER refresh gets MSK IAM tokens, each Postgres connection attempt gets a fresh RDS
// IAM token as its password. Both share one AWS credentials chain.

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "cloud/credentials_provider.h"
#include "common/check_result.h"
#include "config/config.h"

namespace outboxd::daemon {

// True when the config asks for any AWS IAM authentication.
bool UsesAwsIam(const config::Config& config);

// Checks what can be checked without AWS (sslmode=verify-full, one host) and installs the
// hooks backed by `credentials`, which must outlive every client and connection (the process).
// Credentials are fetched lazily, at the first token. `user_agent` goes into MSK tokens.
// InvalidArgument naming the fix for a conninfo IAM cannot use.
absl::Status InstallAwsIam(const config::Config& config, cloud::AwsCredentialsProvider& credentials,
                           std::string user_agent);

// `check` lines: the credential source found (or why none), the token each client would get
// (made, not shown), and the sslmode rule. Fetches credentials (may do HTTP).
CheckResults CheckAwsIam(const config::Config& config, cloud::AwsCredentialsProvider& credentials);

}  // namespace outboxd::daemon
