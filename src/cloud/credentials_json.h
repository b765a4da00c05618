#pragma once
// The JSON credential document the container endpoint and IMDS both answer with:
// {"AccessKeyId": ..., "SecretAccessKey": ..., "Token": ..., "Expiration": "...Z"}.

#include <string_view>

#include "absl/status/statusor.h"
#include "cloud/aws_credentials.h"

namespace outboxd::cloud {

// Parses `body`; `source` names the source in errors and in the result. DataLoss when a key is
// missing or the document is not JSON; the message never quotes the body (it holds secrets).
absl::StatusOr<AwsCredentials> ParseCredentialsJson(std::string_view body, std::string_view source);

}  // namespace outboxd::cloud
