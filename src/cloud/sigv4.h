#pragma once
// AWS Signature Version 4, both forms: an Authorization header (SignWithHeaders) and a
// presigned URL's query string (Presign). Pure: the signing time is an argument, nothing is
// read from the clock or the network. Thread-safe.
//
// https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "cloud/aws_credentials.h"

namespace outboxd::cloud {

using NameValues = std::vector<std::pair<std::string, std::string>>;

// The request as the signer sees it. Names and values are raw (not percent-encoded); the
// signer encodes them as SigV4 requires.
struct SigningRequest {
  std::string method = "GET";
  std::string path = "/";  // Absolute, not encoded; each segment is encoded when signed.
  NameValues query;        // In the order they go on the URL.
  NameValues headers;      // Must include "host"; every header listed here is signed.
  // Lower-case hex SHA-256 of the body. The default is the hash of the empty body.
  std::string payload_hash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
};

struct SigningScope {
  std::string region;
  std::string service;
  std::chrono::system_clock::time_point time;
};

// The intermediate texts, for tests and for debugging a refused signature.
struct SigningTrace {
  std::string canonical_request;
  std::string string_to_sign;
  std::string signature;  // Lower-case hex.
};

struct HeaderSignature {
  SigningTrace trace;
  // Headers to add to the request: X-Amz-Date, X-Amz-Security-Token (with a session token)
  // and Authorization, in that order.
  NameValues headers_to_add;
};

struct PresignedQuery {
  SigningTrace trace;
  // The whole query string of the presigned URL, encoded: the request's own parameters in
  // their order, then X-Amz-Algorithm, -Credential, -Date, -Expires, -SignedHeaders,
  // -Security-Token (with a session token), -Signature; the order botocore writes.
  std::string query_string;
};

// Signs `request` for an Authorization header. InvalidArgument when credentials, region,
// service or the host header are missing.
absl::StatusOr<HeaderSignature> SignWithHeaders(const SigningRequest& request,
                                                const AwsCredentials& credentials,
                                                const SigningScope& scope);

// Presigns `request`, valid `expires` after scope.time. The session token, if any, is part of
// the signed query. InvalidArgument as SignWithHeaders, or for `expires` outside 1 s..7 days.
absl::StatusOr<PresignedQuery> Presign(const SigningRequest& request,
                                       const AwsCredentials& credentials, const SigningScope& scope,
                                       std::chrono::seconds expires);

// "<date>/<region>/<service>/aws4_request".
std::string CredentialScope(const SigningScope& scope);

}  // namespace outboxd::cloud
