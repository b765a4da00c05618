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

// Sets the refresh callback on `conf` when a hook is installed (BuildConf calls it).
void InstallTokenRefresh(rd_kafka_conf_t* conf);
// Moves SASL callbacks to librdkafka's background thread when a hook is installed (NewClient
// calls it). InvalidArgument with librdkafka's reason if it refuses.
absl::Status EnableBackgroundTokenRefresh(rd_kafka_t* client);

}  // namespace outboxd::kafka
