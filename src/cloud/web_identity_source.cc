// STS AssumeRoleWithWebIdentity with a projected OIDC token file: EKS IRSA, and any OIDC
// federation set up the same way. The call is unsigned; the token is the proof.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "cloud/aws_encoding.h"
#include "cloud/aws_http.h"
#include "cloud/credential_source.h"
#include "cloud/sts_xml.h"
#include "common/status.h"
#include "common/strings.h"

namespace outboxd::cloud {
namespace {

class WebIdentitySource final : public CredentialSource {
 public:
  WebIdentitySource(EnvLookup env, WallClock clock)
      : env_(std::move(env)), clock_(std::move(clock)) {}
  std::string Name() const override { return "web-identity"; }

  absl::StatusOr<AwsCredentials> Fetch() override {
    const auto token_file = env_("AWS_WEB_IDENTITY_TOKEN_FILE");
    const auto role_arn = env_("AWS_ROLE_ARN");
    if (!token_file && !role_arn) {
      return absl::NotFoundError("web-identity: AWS_WEB_IDENTITY_TOKEN_FILE is not set");
    }
    if (!token_file || !role_arn) {
      return absl::InvalidArgumentError(
          Concat("web-identity: ", token_file ? "AWS_WEB_IDENTITY_TOKEN_FILE" : "AWS_ROLE_ARN",
                 " is set but ", token_file ? "AWS_ROLE_ARN" : "AWS_WEB_IDENTITY_TOKEN_FILE",
                 " is not; set both (EKS sets both for a service account annotated with "
                 "eks.amazonaws.com/role-arn)"));
    }
    auto token = ReadToken(*token_file);
    if (!token.ok()) return token.status();
    const std::string session =
        env_("AWS_ROLE_SESSION_NAME")
            .value_or(Concat("outboxd-", std::chrono::duration_cast<std::chrono::seconds>(
                                             clock_().time_since_epoch())
                                             .count()));
    const std::string endpoint = StsEndpoint();
    HttpCall call;
    call.method = "POST";
    call.url = endpoint;
    call.content_type = "application/x-www-form-urlencoded";
    call.body =
        Concat("Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=", UriEncode(*role_arn),
               "&RoleSessionName=", UriEncode(session), "&WebIdentityToken=", UriEncode(*token));
    call.timeout = std::chrono::seconds(5);
    auto answer = SendHttp(call);
    if (!answer.ok()) {
      return absl::UnavailableError(Concat("web-identity: STS at ", endpoint,
                                           " did not answer: ", MessageOf(answer.status())));
    }
    if (answer->status != 200) return Refusal(*answer, endpoint, *role_arn);
    return ParseStsCredentials(answer->body, Name());
  }

 private:
  absl::StatusOr<std::string> ReadToken(const std::string& path) const {
    std::ifstream in(path);
    if (!in) {
      return absl::FailedPreconditionError(
          Concat("web-identity: cannot read AWS_WEB_IDENTITY_TOKEN_FILE ", path, " (",
                 std::strerror(errno),
                 "); mount the service account token there or unset "
                 "the variable"));
    }
    std::stringstream text;
    text << in.rdbuf();
    std::string token(TrimTrailingSpace(text.str()));
    if (token.empty()) {
      return absl::FailedPreconditionError(Concat("web-identity: AWS_WEB_IDENTITY_TOKEN_FILE ",
                                                  path, " is empty; it should hold a JWT"));
    }
    return token;
  }

  std::string StsEndpoint() const {
    if (auto url = env_("AWS_ENDPOINT_URL_STS")) return *url;
    if (auto url = env_("AWS_ENDPOINT_URL")) return *url;
    const auto region = env_("AWS_REGION") ? env_("AWS_REGION") : env_("AWS_DEFAULT_REGION");
    return region ? Concat("https://sts.", *region, ".amazonaws.com/")
                  : "https://sts.amazonaws.com/";
  }

  absl::Status Refusal(const HttpAnswer& answer, const std::string& endpoint,
                       const std::string& role_arn) const {
    const std::string summary = StsErrorSummary(answer.body, answer.status);
    const std::string text =
        Concat("web-identity: STS at ", endpoint, " refused AssumeRoleWithWebIdentity for ",
               role_arn, ": ", summary);
    if (answer.status >= 500 || Contains(summary, "Throttl")) return absl::UnavailableError(text);
    return absl::PermissionDeniedError(
        Concat(text,
               "; check AWS_ROLE_ARN, the role's trust policy (OIDC provider, audience "
               "sts.amazonaws.com, service account subject) and the token file"));
  }

  EnvLookup env_;
  WallClock clock_;
};

}  // namespace

std::unique_ptr<CredentialSource> MakeWebIdentitySource(EnvLookup env, WallClock clock) {
  return std::make_unique<WebIdentitySource>(std::move(env), std::move(clock));
}

}  // namespace outboxd::cloud
