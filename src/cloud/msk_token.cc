#include "cloud/msk_token.h"

#include "cloud/aws_encoding.h"
#include "cloud/sigv4.h"
#include "common/strings.h"

namespace outboxd::cloud {
namespace {

// Python's urllib.parse.quote_plus, which the reference signer applies to the User-Agent: our
// encoding, but a space is '+'.
std::string QuotePlus(std::string_view text) {
  std::string out;
  for (const char c : text) out += c == ' ' ? std::string("+") : UriEncode(std::string_view(&c, 1));
  return out;
}

}  // namespace

absl::Status ValidateRegion(std::string_view region, std::string_view what) {
  if (region.empty()) {
    return absl::InvalidArgumentError(
        Concat(what,
               ": no AWS region; set it to the region of the cluster or database (e.g. "
               "\"us-east-1\") or set AWS_REGION"));
  }
  for (const char c : region) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
      return absl::InvalidArgumentError(Concat(what, ": \"", region,
                                               "\" is not an AWS region name (lower-case "
                                               "letters, digits and '-', e.g. \"us-east-1\")"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<MskToken> MakeMskToken(const AwsCredentials& credentials, std::string_view region,
                                      std::chrono::system_clock::time_point now,
                                      std::string_view user_agent) {
  if (auto status = ValidateRegion(region, "MSK IAM"); !status.ok()) return status;
  const std::string host = Concat("kafka.", region, ".amazonaws.com");
  SigningRequest request;
  request.query = {{"Action", "kafka-cluster:Connect"}};
  request.headers = {{"host", host}};
  // The signature covers whole seconds only, as X-Amz-Date does.
  const auto signing_time = std::chrono::floor<std::chrono::seconds>(now);
  const SigningScope scope{std::string(region), "kafka-cluster", signing_time};
  auto presigned = Presign(request, credentials, scope, kMskTokenLifetime);
  if (!presigned.ok()) return presigned.status();
  const std::string url = Concat("https://", host, "/?", presigned->query_string,
                                 "&User-Agent=", QuotePlus(user_agent));
  return MskToken{Base64UrlEncode(url), signing_time + kMskTokenLifetime};
}

}  // namespace outboxd::cloud
