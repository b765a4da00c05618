#pragma once
// The Amazon MSK IAM authentication token, made as AWS's aws-msk-iam-sasl-signer libraries
// make it: a SigV4-presigned `GET https://kafka.<region>.amazonaws.com/?Action=
// kafka-cluster:Connect` (service kafka-cluster, 900 s), a User-Agent parameter appended after
// the signature, the whole URL base64url-encoded without padding. The broker recomputes the
// signature; the token is the OAUTHBEARER token value, its expiry the token's lifetime.
// Pure; thread-safe.

#include <chrono>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "cloud/aws_credentials.h"

namespace outboxd::cloud {

inline constexpr std::chrono::seconds kMskTokenLifetime{900};

struct MskToken {
  std::string value;  // Secret: a bearer credential for 15 minutes; never logged.
  std::chrono::system_clock::time_point expiration;  // Signing time + kMskTokenLifetime.
};

// The token for a cluster in `region` (e.g. "us-east-1"), signed at `now` with `credentials`.
// `user_agent` is informational for the broker's logs (the Python signer sends
// "aws-msk-iam-sasl-signer-python/<version>"). InvalidArgument naming the fix when the region
// is missing or not an AWS region name, or the credentials are incomplete.
absl::StatusOr<MskToken> MakeMskToken(const AwsCredentials& credentials, std::string_view region,
                                      std::chrono::system_clock::time_point now,
                                      std::string_view user_agent);

// InvalidArgument unless `region` looks like an AWS region name (lower-case letters, digits
// and '-', e.g. "eu-west-1"): it becomes part of a host name. `what` names the option.
absl::Status ValidateRegion(std::string_view region, std::string_view what);

}  // namespace outboxd::cloud
