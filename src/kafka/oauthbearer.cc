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

bool UsesHookTokens(const rd_kafka_conf_t* conf) {
  if (!HasTokenHook()) return false;
  char mechanism[64];
  size_t size = sizeof mechanism;
  return rd_kafka_conf_get(conf, "sasl.mechanisms", mechanism, &size) == RD_KAFKA_CONF_OK &&
         std::string_view(mechanism) == "OAUTHBEARER";
}

void SetTokenHook(TokenHook hook) { Hook() = std::move(hook); }
bool HasTokenHook() { return static_cast<bool>(Hook()); }

void InstallTokenRefresh(rd_kafka_conf_t* conf) {
  if (!UsesHookTokens(conf)) return;
  rd_kafka_conf_set_oauthbearer_token_refresh_cb(conf, &RefreshToken);
  // A queue of its own for SASL callbacks, which EnableBackgroundTokenRefresh hands to the
  // background thread.
  rd_kafka_conf_enable_sasl_queue(conf, 1);
}

absl::Status EnableBackgroundTokenRefresh(rd_kafka_t* client, bool uses_hook_tokens) {
  if (!uses_hook_tokens) return absl::OkStatus();
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
