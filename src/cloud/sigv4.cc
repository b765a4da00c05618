#include "cloud/sigv4.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "cloud/aws_encoding.h"
#include "common/strings.h"

namespace outboxd::cloud {
namespace {

constexpr char kAlgorithm[] = "AWS4-HMAC-SHA256";

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Trims the value and collapses runs of spaces into one, as the canonical headers require.
std::string CanonicalHeaderValue(std::string_view value) {
  std::string out;
  bool in_space = false;
  for (const char c : value) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      in_space = !out.empty();
      continue;
    }
    if (in_space) out.push_back(' ');
    in_space = false;
    out.push_back(c);
  }
  return out;
}

// Lower-cased names to comma-joined values, sorted by name (std::map orders bytes).
using CanonicalHeaders = std::map<std::string, std::string>;

CanonicalHeaders Canonicalize(const NameValues& headers) {
  CanonicalHeaders out;
  for (const auto& [name, value] : headers) {
    std::string& joined = out[Lower(name)];
    if (!joined.empty()) joined.push_back(',');
    joined += CanonicalHeaderValue(value);
  }
  return out;
}

std::string SignedHeaderList(const CanonicalHeaders& headers) {
  std::string out;
  for (const auto& [name, value] : headers) {
    if (!out.empty()) out.push_back(';');
    out += name;
  }
  return out;
}

std::string CanonicalQuery(const NameValues& query) {
  std::vector<std::pair<std::string, std::string>> encoded;
  encoded.reserve(query.size());
  for (const auto& [name, value] : query) encoded.emplace_back(UriEncode(name), UriEncode(value));
  std::sort(encoded.begin(), encoded.end());
  std::string out;
  for (const auto& [name, value] : encoded) {
    if (!out.empty()) out.push_back('&');
    out += Concat(name, "=", value);
  }
  return out;
}

std::string CanonicalRequest(const SigningRequest& request, const NameValues& query,
                             const CanonicalHeaders& headers) {
  std::string out = Concat(request.method, "\n", UriEncode(request.path, /*keep_slash=*/true), "\n",
                           CanonicalQuery(query), "\n");
  for (const auto& [name, value] : headers) out += Concat(name, ":", value, "\n");
  out += Concat("\n", SignedHeaderList(headers), "\n", request.payload_hash);
  return out;
}

// Fills the string to sign and the signature of `trace` from its canonical request.
void Sign(const AwsCredentials& credentials, const SigningScope& scope, SigningTrace& trace) {
  trace.string_to_sign = Concat(kAlgorithm, "\n", AmzDate(scope.time), "\n", CredentialScope(scope),
                                "\n", HexEncode(Sha256(trace.canonical_request)));
  std::string key =
      HmacSha256(Concat("AWS4", credentials.secret_access_key), AmzDateStamp(scope.time));
  key = HmacSha256(key, scope.region);
  key = HmacSha256(key, scope.service);
  key = HmacSha256(key, "aws4_request");
  trace.signature = HexEncode(HmacSha256(key, trace.string_to_sign));
}

absl::Status Validate(const SigningRequest& request, const AwsCredentials& credentials,
                      const SigningScope& scope) {
  if (credentials.access_key_id.empty() || credentials.secret_access_key.empty()) {
    return absl::InvalidArgumentError(
        "SigV4: the AWS credentials lack an access key id or a secret access key");
  }
  if (scope.region.empty()) {
    return absl::InvalidArgumentError("SigV4: no AWS region (set the region option)");
  }
  if (scope.service.empty()) return absl::InvalidArgumentError("SigV4: no signing service");
  const bool has_host =
      std::any_of(request.headers.begin(), request.headers.end(),
                  [](const auto& header) { return Lower(header.first) == "host"; });
  if (!has_host) return absl::InvalidArgumentError("SigV4: the request has no host header");
  if (request.path.empty() || request.path.front() != '/') {
    return absl::InvalidArgumentError("SigV4: the request path must start with '/'");
  }
  return absl::OkStatus();
}

}  // namespace

std::string CredentialScope(const SigningScope& scope) {
  return Concat(AmzDateStamp(scope.time), "/", scope.region, "/", scope.service, "/aws4_request");
}

absl::StatusOr<HeaderSignature> SignWithHeaders(const SigningRequest& request,
                                                const AwsCredentials& credentials,
                                                const SigningScope& scope) {
  if (auto status = Validate(request, credentials, scope); !status.ok()) return status;
  HeaderSignature out;
  out.headers_to_add.emplace_back("X-Amz-Date", AmzDate(scope.time));
  if (!credentials.session_token.empty()) {
    out.headers_to_add.emplace_back("X-Amz-Security-Token", credentials.session_token);
  }
  NameValues headers = request.headers;
  headers.insert(headers.end(), out.headers_to_add.begin(), out.headers_to_add.end());
  const CanonicalHeaders canonical = Canonicalize(headers);
  out.trace.canonical_request = CanonicalRequest(request, request.query, canonical);
  Sign(credentials, scope, out.trace);
  out.headers_to_add.emplace_back(
      "Authorization",
      Concat(kAlgorithm, " Credential=", credentials.access_key_id, "/", CredentialScope(scope),
             ", SignedHeaders=", SignedHeaderList(canonical), ", Signature=", out.trace.signature));
  return out;
}

absl::StatusOr<PresignedQuery> Presign(const SigningRequest& request,
                                       const AwsCredentials& credentials, const SigningScope& scope,
                                       std::chrono::seconds expires) {
  if (auto status = Validate(request, credentials, scope); !status.ok()) return status;
  if (expires < std::chrono::seconds(1) || expires > std::chrono::hours(24 * 7)) {
    return absl::InvalidArgumentError("SigV4: a presigned URL lives between 1 s and 7 days");
  }
  const CanonicalHeaders canonical = Canonicalize(request.headers);
  NameValues auth = {
      {"X-Amz-Algorithm", kAlgorithm},
      {"X-Amz-Credential", Concat(credentials.access_key_id, "/", CredentialScope(scope))},
      {"X-Amz-Date", AmzDate(scope.time)},
      {"X-Amz-Expires", std::to_string(expires.count())},
      {"X-Amz-SignedHeaders", SignedHeaderList(canonical)},
  };
  if (!credentials.session_token.empty()) {
    auth.emplace_back("X-Amz-Security-Token", credentials.session_token);
  }
  NameValues query = request.query;
  query.insert(query.end(), auth.begin(), auth.end());
  PresignedQuery out;
  out.trace.canonical_request = CanonicalRequest(request, query, canonical);
  Sign(credentials, scope, out.trace);
  for (const auto& [name, value] : query) {
    if (!out.query_string.empty()) out.query_string.push_back('&');
    out.query_string += Concat(UriEncode(name), "=", UriEncode(value));
  }
  out.query_string += Concat("&X-Amz-Signature=", out.trace.signature);
  return out;
}

}  // namespace outboxd::cloud
