#pragma once
// OAUTHBEARER tokens that outboxd makes itself (Amazon MSK IAM, DESIGN.md section 8): a
// process-wide hook that librdkafka's token refresh callback asks for a token whenever a client
// needs one (at start and at 80% of the previous token's lifetime). kafka knows nothing of AWS;
// the daemon installs a hook backed by src/cloud.

#include <librdkafka/rdkafka.h>

#include <chrono>
#include <functional>
#include <string>

#include "absl/status/statusor.h"

namespace outboxd::kafka {

struct BearerToken {
  std::string value;  // Secret: never logged.
  std::chrono::system_clock::time_point expiration;
  std::string principal;  // librdkafka requires one; the broker authenticates the token.
};

// Makes a token. Runs on librdkafka's background thread (callbacks are moved there so clients
// that never poll, admin and helper clients, get tokens too): must be thread-safe; may block.
// An error's message is the operator's (it names the credential source and the fix).
using TokenHook = std::function<absl::StatusOr<BearerToken>()>;

// Installs `hook` for every client built after this; empty removes it. Call at start-up before
// any client exists: readers do not lock.
void SetTokenHook(TokenHook hook);
bool HasTokenHook();

// True when a hook is installed and `conf` has sasl.mechanism OAUTHBEARER.
bool UsesHookTokens(const rd_kafka_conf_t* conf);
// When UsesHookTokens: sets the refresh callback and a SASL queue on `conf` (BuildConf calls it
// after applying the properties).
void InstallTokenRefresh(rd_kafka_conf_t* conf);
// With `uses_hook_tokens` (UsesHookTokens of its conf): moves SASL callbacks to librdkafka's
// background thread (NewClient calls it). InvalidArgument with librdkafka's reason if refused.
absl::Status EnableBackgroundTokenRefresh(rd_kafka_t* client, bool uses_hook_tokens);

}  // namespace outboxd::kafka
