#include "kafka/client.h"

#include <algorithm>
#include <atomic>
#include <chrono>

#include "common/strings.h"
#include "kafka/delivery_error.h"
#include "kafka/oauthbearer.h"

namespace outboxd::kafka {

std::string LibraryVersion() { return rd_kafka_version_str(); }

namespace {
std::atomic<bool> reached_a_broker{false};
}  // namespace

bool ReachedABroker() { return reached_a_broker.load(std::memory_order_relaxed); }
void NoteBrokerReached() { reached_a_broker.store(true, std::memory_order_relaxed); }

absl::StatusOr<Owned<rd_kafka_conf_t>> BuildConf(const Properties& properties) {
  Owned<rd_kafka_conf_t> conf(rd_kafka_conf_new());
  char errstr[512];
  for (const auto& [name, value] : properties) {
    if (rd_kafka_conf_set(conf.get(), name.c_str(), value.c_str(), errstr, sizeof errstr) !=
        RD_KAFKA_CONF_OK) {
      return absl::InvalidArgumentError(
          Concat("[kafka] \"", name, "\": ", errstr,
                 "; see librdkafka's CONFIGURATION.md for the properties it accepts"));
    }
  }
  InstallTokenRefresh(conf.get());  // MSK IAM: outboxd's tokens, when a hook is installed.
  return conf;
}

absl::StatusOr<Owned<rd_kafka_t>> NewClient(rd_kafka_type_t type, Owned<rd_kafka_conf_t> conf) {
  char errstr[512];
  const bool uses_hook_tokens = UsesHookTokens(conf.get());
  // rd_kafka_new takes ownership of the configuration only when it succeeds.
  Owned<rd_kafka_t> rk(rd_kafka_new(type, conf.get(), errstr, sizeof errstr));
  if (!rk) return absl::InvalidArgumentError(errstr);
  static_cast<void>(conf.release());
  if (auto s = EnableBackgroundTokenRefresh(rk.get(), uses_hook_tokens); !s.ok()) return s;
  return rk;
}

Properties ConnectionProperties(const Properties& properties) {
  Properties kept;
  for (const auto& p : properties) {
    for (std::string_view prefix :
         {"bootstrap.servers", "security.protocol", "sasl.", "ssl.", "enable.ssl.", "client.id",
          "broker.address.family", "socket."}) {
      if (p.first.starts_with(prefix)) {
        kept.push_back(p);
        break;
      }
    }
  }
  return kept;
}

namespace {

void DropLog(const rd_kafka_t* /*rk*/, int /*level*/, const char* /*facility*/,
             const char* /*message*/) {}

// Served by rd_kafka_poll on the caller's thread; keeps the first operator error.
void KeepOperatorError(rd_kafka_t* /*rk*/, int err, const char* reason, void* opaque) {
  auto* sink = static_cast<std::optional<std::string>*>(opaque);
  if (!sink->has_value()) {
    *sink = OperatorErrorMessage(static_cast<rd_kafka_resp_err_t>(err), reason, ReachedABroker());
  }
}

}  // namespace

absl::StatusOr<Owned<rd_kafka_t>> NewHelperClient(rd_kafka_type_t type,
                                                  const Properties& properties,
                                                  const Properties& settings,
                                                  std::optional<std::string>* operator_error) {
  Properties all = ConnectionProperties(properties);
  all.insert(all.end(), settings.begin(), settings.end());
  auto conf = BuildConf(all);
  if (!conf.ok()) return conf.status();
  rd_kafka_conf_set_log_cb(conf->get(), &DropLog);
  rd_kafka_conf_set_error_cb(conf->get(), &KeepOperatorError);
  rd_kafka_conf_set_opaque(conf->get(), operator_error);
  return NewClient(type, *std::move(conf));
}

BackgroundDestroyer::~BackgroundDestroyer() {
  for (std::future<void>& done : pending_) done.wait();
}

void BackgroundDestroyer::Destroy(Owned<rd_kafka_t> client) {
  std::erase_if(pending_, [](const std::future<void>& done) {
    return done.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  });
  pending_.push_back(
      std::async(std::launch::async, [client = std::move(client)]() mutable { client.reset(); }));
}

}  // namespace outboxd::kafka
