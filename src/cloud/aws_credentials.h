#pragma once
// One set of AWS credentials, as every source in the chain produces them.

#include <chrono>
#include <optional>
#include <string>

namespace outboxd::cloud {

struct AwsCredentials {
  std::string access_key_id;
  std::string secret_access_key;  // Secret: never logged, never in an error.
  std::string session_token;      // Secret; empty for long-term (IAM user) keys.
  // When the source says they stop working; nullopt for keys that do not expire.
  std::optional<std::chrono::system_clock::time_point> expiration;
  // Which source produced them ("environment", "web-identity", "imds", ...), for logs and
  // `check`; not part of what is signed.
  std::string source;
};

}  // namespace outboxd::cloud
