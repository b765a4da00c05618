#pragma once
// One place AWS credentials can come from, as the AWS SDKs look for them, and the seams the
// sources read through (environment variables, wall clock) so tests control both.

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cloud/aws_credentials.h"

namespace outboxd::cloud {

// Reads one environment variable; nullopt when unset. Empty values count as unset, as in the
// SDKs.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;
// The process environment (getenv). Thread-safe as long as nobody calls setenv.
EnvLookup ProcessEnv();

// Wall-clock "now", for expirations. Tests pass a fake.
using WallClock = std::function<std::chrono::system_clock::time_point()>;
WallClock SystemWallClock();

class CredentialSource {
 public:
  virtual ~CredentialSource() = default;
  // Short and stable, for logs, errors and `check`: "environment", "web-identity",
  // "profile:<name>", "container", "imds".
  virtual std::string Name() const = 0;
  // Fresh credentials from this source. NotFound when the source is not configured here (the
  // chain then tries the next one); any other error is the source's own failure, whose message
  // names the source and the fix, never a secret. Blocking (may do HTTP); not thread-safe.
  virtual absl::StatusOr<AwsCredentials> Fetch() = 0;
};

// The SDKs' default order: environment, web identity (EKS IRSA), the shared config and
// credentials files (AWS_PROFILE), container credentials (ECS, EKS Pod Identity), EC2 IMDSv2.
std::vector<std::unique_ptr<CredentialSource>> DefaultSources(const EnvLookup& env,
                                                              const WallClock& clock);

std::unique_ptr<CredentialSource> MakeEnvironmentSource(EnvLookup env);
// Shared files: AWS_SHARED_CREDENTIALS_FILE (default ~/.aws/credentials) and AWS_CONFIG_FILE
// (default ~/.aws/config), profile AWS_PROFILE (default "default").
std::unique_ptr<CredentialSource> MakeProfileSource(EnvLookup env);
// STS AssumeRoleWithWebIdentity with AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN, at
// AWS_ENDPOINT_URL_STS, AWS_ENDPOINT_URL, or the regional STS endpoint of AWS_REGION.
std::unique_ptr<CredentialSource> MakeWebIdentitySource(EnvLookup env, WallClock clock);
// AWS_CONTAINER_CREDENTIALS_FULL_URI, or AWS_CONTAINER_CREDENTIALS_RELATIVE_URI under
// `relative_base` (the ECS agent, http://169.254.170.2, unless a test says otherwise).
std::unique_ptr<CredentialSource> MakeContainerSource(
    EnvLookup env, std::string relative_base = "http://169.254.170.2");
// EC2 instance metadata, IMDSv2 only (session token first), at
// AWS_EC2_METADATA_SERVICE_ENDPOINT (default http://169.254.169.254); skipped when
// AWS_EC2_METADATA_DISABLED=true.
std::unique_ptr<CredentialSource> MakeImdsSource(EnvLookup env);

}  // namespace outboxd::cloud
