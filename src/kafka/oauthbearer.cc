#include "kafka/oauthbearer.h"

#include "common/log.h"
#include "common/status.h"
#include "common/strings.h"
#include "kafka/client.h"

namespace outboxd::kafka {
namespace {

TokenHook& Hook() {
  static TokenHook hook;
  return hook;
}

// librdkafka's oauthbearer_token_refresh_cb; runs on its background thread.
void RefreshToken(rd_kafka_t* client, const char* /*oauthbearer_config*/, void* /*opaque*/) {
  auto token = Hook()();
  if (!token.ok()) {
    const std::string reason =
        Concat("cannot make an OAUTHBEARER token: ", MessageOf(token.status()));
    log::Error("{}", reason);
    rd_kafka_oauthbearer_set_token_failure(client, reason.c_str());
    return;
  }
  const auto lifetime_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(token->expiration.time_since_epoch())
          .count();
  char errstr[512];
  if (rd_kafka_oauthbearer_set_token(client, token->value.c_str(), lifetime_ms,
                                     token->principal.c_str(), nullptr, 0, errstr,
                                     sizeof errstr) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    log::Error("librdkafka refused the OAUTHBEARER token: {}", errstr);
    rd_kafka_oauthbearer_set_token_failure(client, errstr);
  }
}

}  // namespace

void SetTokenHook(TokenHook hook) { Hook() = std::move(hook); }
bool HasTokenHook() { return static_cast<bool>(Hook()); }

void InstallTokenRefresh(rd_kafka_conf_t* conf) {
  if (HasTokenHook()) rd_kafka_conf_set_oauthbearer_token_refresh_cb(conf, &RefreshToken);
}

absl::Status EnableBackgroundTokenRefresh(rd_kafka_t* client) {
  if (!HasTokenHook()) return absl::OkStatus();
  Owned<rd_kafka_error_t> error(rd_kafka_sasl_background_callbacks_enable(client));
  if (error) {
    return absl::InvalidArgumentError(
        Concat("librdkafka cannot refresh OAUTHBEARER tokens in the "
               "background: ",
               rd_kafka_error_string(error.get())));
  }
  return absl::OkStatus();
}

}  // namespace outboxd::kafka
