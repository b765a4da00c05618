#include "cloud/credentials_json.h"

#include <simdjson.h>

#include "cloud/aws_encoding.h"
#include "common/strings.h"

namespace outboxd::cloud {

absl::StatusOr<AwsCredentials> ParseCredentialsJson(std::string_view body,
                                                    std::string_view source) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(body.data(), body.size()).get(root) != simdjson::SUCCESS || !root.is_object()) {
    return absl::DataLossError(Concat(source, ": the credentials answer is not a JSON object"));
  }
  const auto text = [&](const char* key, bool required, std::string& out) -> absl::Status {
    std::string_view value;
    if (root[key].get_string().get(value) != simdjson::SUCCESS) {
      if (!required) return absl::OkStatus();
      return absl::DataLossError(
          Concat(source, ": the credentials answer has no string \"", key, "\""));
    }
    out = std::string(value);
    return absl::OkStatus();
  };
  AwsCredentials credentials;
  credentials.source = std::string(source);
  std::string expiration;
  for (const auto& status :
       {text("AccessKeyId", true, credentials.access_key_id),
        text("SecretAccessKey", true, credentials.secret_access_key),
        text("Token", false, credentials.session_token), text("Expiration", false, expiration)}) {
    if (!status.ok()) return status;
  }
  if (!expiration.empty()) {
    std::chrono::system_clock::time_point when;
    if (!ParseIso8601(expiration, &when)) {
      return absl::DataLossError(
          Concat(source, ": the credentials' Expiration \"", expiration, "\" is not ISO 8601"));
    }
    credentials.expiration = when;
  }
  return credentials;
}

}  // namespace outboxd::cloud
