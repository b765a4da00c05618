#include "cloud/rds_token.h"

#include "cloud/msk_token.h"
#include "cloud/sigv4.h"
#include "common/strings.h"

namespace outboxd::cloud {

absl::StatusOr<std::string> MakeRdsAuthToken(const AwsCredentials& credentials,
                                             const RdsTokenTarget& target,
                                             std::chrono::system_clock::time_point now) {
  if (auto status = ValidateRegion(target.region, "RDS IAM"); !status.ok()) return status;
  if (target.host.empty() || target.host.front() == '/') {
    return absl::InvalidArgumentError(
        "RDS IAM: the token is made for a host name; set the Postgres host to the instance or "
        "cluster endpoint (not a Unix socket directory)");
  }
  if (target.user.empty()) {
    return absl::InvalidArgumentError(
        "RDS IAM: no database user; set the Postgres user to the role granted rds_iam");
  }
  const std::string netloc = Concat(target.host, ":", target.port);
  SigningRequest request;
  request.query = {{"Action", "connect"}, {"DBUser", target.user}};
  // botocore signs the host without the port only when it is the scheme's default (443).
  request.headers = {{"host", target.port == 443 ? target.host : netloc}};
  const SigningScope scope{target.region, "rds-db", std::chrono::floor<std::chrono::seconds>(now)};
  auto presigned = Presign(request, credentials, scope, kRdsTokenLifetime);
  if (!presigned.ok()) return presigned.status();
  return Concat(netloc, "/?", presigned->query_string);
}

}  // namespace outboxd::cloud
