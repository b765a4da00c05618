// The sources served by the platform over link-local HTTP: container credentials (ECS task
// roles, EKS Pod Identity) and EC2 instance metadata (IMDSv2).
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "cloud/aws_http.h"
#include "cloud/credential_source.h"
#include "cloud/credentials_json.h"
#include "common/status.h"
#include "common/strings.h"

namespace outboxd::cloud {
namespace {

// Plain HTTP carries the credentials in clear, so the SDKs allow it only to the agents'
// link-local addresses and to loopback.
bool MayUsePlainHttp(const std::string& host) {
  return host == "localhost" || host == "::1" || host.starts_with("127.") ||
         host == "169.254.170.2" || host == "169.254.170.23" || host == "fd00:ec2::23";
}

class ContainerSource final : public CredentialSource {
 public:
  ContainerSource(EnvLookup env, std::string relative_base)
      : env_(std::move(env)), relative_base_(std::move(relative_base)) {}
  std::string Name() const override { return "container"; }

  absl::StatusOr<AwsCredentials> Fetch() override {
    std::string url;
    if (const auto relative = env_("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")) {
      url = Concat(relative_base_, *relative);
    } else if (const auto full = env_("AWS_CONTAINER_CREDENTIALS_FULL_URI")) {
      auto parsed = ParseUrl(*full, "container: AWS_CONTAINER_CREDENTIALS_FULL_URI");
      if (!parsed.ok()) return parsed.status();
      if (parsed->scheme == "http" && !MayUsePlainHttp(parsed->host)) {
        return absl::InvalidArgumentError(
            Concat("container: AWS_CONTAINER_CREDENTIALS_FULL_URI ", *full, " is plain http to ",
                   parsed->host, "; use https, a loopback address or the ECS/EKS agent's address"));
      }
      url = *full;
    } else {
      return absl::NotFoundError("container: AWS_CONTAINER_CREDENTIALS_*_URI is not set");
    }
    HttpCall call;
    call.url = url;
    auto authorization = Authorization();
    if (!authorization.ok()) return authorization.status();
    if (!authorization->empty()) call.headers.emplace_back("Authorization", *authorization);
    auto answer = SendHttp(call);
    if (!answer.ok()) {
      return absl::UnavailableError(Concat("container: the credentials endpoint did not answer: ",
                                           MessageOf(answer.status())));
    }
    if (answer->status != 200) {
      return absl::PermissionDeniedError(
          Concat("container: the credentials endpoint answered HTTP ", answer->status,
                 "; check the task or pod role and AWS_CONTAINER_AUTHORIZATION_TOKEN(_FILE)"));
    }
    return ParseCredentialsJson(answer->body, Name());
  }

 private:
  // The Authorization header value: the token file (re-read each time: EKS rotates it) wins
  // over the variable.
  absl::StatusOr<std::string> Authorization() const {
    std::string token;
    if (const auto path = env_("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE")) {
      std::ifstream in(*path);
      if (!in) {
        return absl::FailedPreconditionError(
            Concat("container: cannot read AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE ", *path, " (",
                   std::strerror(errno), "); mount the token there or unset the variable"));
      }
      std::stringstream text;
      text << in.rdbuf();
      token = std::string(TrimTrailingSpace(text.str()));
    } else {
      token = env_("AWS_CONTAINER_AUTHORIZATION_TOKEN").value_or("");
    }
    if (token.find_first_of("\r\n") != std::string::npos) {
      return absl::InvalidArgumentError(
          "container: the authorization token contains a line break; fix the token source");
    }
    return token;
  }

  EnvLookup env_;
  std::string relative_base_;
};

class ImdsSource final : public CredentialSource {
 public:
  explicit ImdsSource(EnvLookup env) : env_(std::move(env)) {}
  std::string Name() const override { return "imds"; }

  absl::StatusOr<AwsCredentials> Fetch() override {
    if (env_("AWS_EC2_METADATA_DISABLED").value_or("") == "true") {
      return absl::NotFoundError("imds: AWS_EC2_METADATA_DISABLED=true");
    }
    const auto configured = env_("AWS_EC2_METADATA_SERVICE_ENDPOINT");
    std::string endpoint = configured.value_or("http://169.254.169.254");
    while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
    // IMDSv2: a session token first; IMDSv1 (no token) is never used.
    auto token = Call("PUT", Concat(endpoint, "/latest/api/token"),
                      {{"X-aws-ec2-metadata-token-ttl-seconds", "21600"}}, "the session token");
    if (!token.ok()) {
      // Off EC2 nothing answers; that is "not configured" unless the endpoint was set on purpose.
      if (!configured && absl::IsUnavailable(token.status())) {
        return absl::NotFoundError(Concat(MessageOf(token.status()), " (not on EC2?)"));
      }
      return token.status();
    }
    const NameValues auth = {{"X-aws-ec2-metadata-token", *token}};
    const std::string base = Concat(endpoint, "/latest/meta-data/iam/security-credentials/");
    auto roles = Call("GET", base, auth, "the instance role");
    if (!roles.ok()) return roles.status();
    const std::string role = roles->substr(0, roles->find('\n'));
    if (role.empty()) {
      return absl::FailedPreconditionError(
          "imds: the instance has no IAM role; attach an instance profile");
    }
    auto document = Call("GET", Concat(base, role), auth, Concat("the credentials of role ", role));
    if (!document.ok()) return document.status();
    return ParseCredentialsJson(*document, Name());
  }

 private:
  absl::StatusOr<std::string> Call(std::string method, std::string url, NameValues headers,
                                   std::string_view what) const {
    HttpCall call;
    call.method = std::move(method);
    call.url = std::move(url);
    call.headers = std::move(headers);
    call.timeout = std::chrono::seconds(1);
    auto answer = SendHttp(call);
    if (!answer.ok()) {
      return absl::UnavailableError(
          Concat("imds: no answer for ", what, ": ", MessageOf(answer.status())));
    }
    if (answer->status == 404 && Contains(what, "role")) {
      return absl::FailedPreconditionError(
          Concat("imds: ", what, " not found (HTTP 404); attach an instance profile"));
    }
    if (answer->status != 200) {
      return absl::PermissionDeniedError(Concat(
          "imds: HTTP ", answer->status, " for ", what,
          "; check the instance's metadata options (HttpTokens, HttpPutResponseHopLimit 2 in "
          "containers)"));
    }
    return answer->body;
  }

  EnvLookup env_;
};

}  // namespace

std::unique_ptr<CredentialSource> MakeContainerSource(EnvLookup env, std::string relative_base) {
  return std::make_unique<ContainerSource>(std::move(env), std::move(relative_base));
}

std::unique_ptr<CredentialSource> MakeImdsSource(EnvLookup env) {
  return std::make_unique<ImdsSource>(std::move(env));
}

}  // namespace outboxd::cloud
