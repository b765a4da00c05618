#include "kafka/broker_checks.h"

#include <map>
#include <optional>

#include "absl/strings/numbers.h"
#include "common/log.h"
#include "fmt/format.h"
#include "kafka/client.h"
#include "kafka/delivery_error.h"

namespace outboxd::kafka {
namespace {

using MetadataPtr = Owned<const rd_kafka_metadata_t>;

constexpr std::string_view kBrokers = "kafka brokers";
constexpr std::string_view kSecurityFix =
    "check bootstrap.servers, that the brokers are up and reachable from here, and "
    "security.protocol / sasl.* / ssl.* in [kafka]";

// The first error librdkafka reported (served by rd_kafka_poll on the checking thread).
struct ErrorSink {
  std::optional<std::string> first;
  bool authentication = false;
};

void OnError(rd_kafka_t*, int err, const char* reason, void* opaque) {
  auto* sink = static_cast<ErrorSink*>(opaque);
  const auto code = static_cast<rd_kafka_resp_err_t>(err);
  if (code == RD_KAFKA_RESP_ERR__AUTHENTICATION || code == RD_KAFKA_RESP_ERR__SSL ||
      code == RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED ||
      TlsAtPlaintextListener(code, reason)) {
    sink->authentication = true;
    sink->first = reason;  // Auth is the more useful cause than the transport errors before it.
  } else if (!sink->first) {
    sink->first = reason;
  }
}

// librdkafka's own log lines, at debug level (through the redacting logger).
void OnLog(const rd_kafka_t*, int, const char* facility, const char* message) {
  log::Debug("librdkafka {}: {}", facility, message);
}

class BrokerChecker {
 public:
  explicit BrokerChecker(const BrokerCheckOptions& options) : options_(options) {}

  CheckResults Run() {
    if (!Create()) return out_;
    const std::optional<int32_t> broker = CheckCluster();
    if (!broker) return out_;
    for (const std::string& topic : options_.topics) CheckTopic(topic, *broker);
    if (!options_.transactional_ids.empty()) {
      const auto configs = BrokerConfigs(*broker);
      CheckTransactions(configs);
      for (const std::string& id : options_.transactional_ids)
        CheckTransactionalIdAcls(id, configs);
    }
    return out_;
  }

 private:
  bool Create() {
    auto conf = BuildConf(options_.properties);
    if (!conf.ok()) {
      out_.push_back(Fail(std::string(kBrokers), std::string(conf.status().message()),
                          "fix or remove that property"));
      return false;
    }
    char errstr[512];
    // Describing a missing topic must not create it (the broker would, for a producer).
    rd_kafka_conf_set(conf->get(), "allow.auto.create.topics", "false", errstr, sizeof errstr);
    rd_kafka_conf_set_error_cb(conf->get(), OnError);
    rd_kafka_conf_set_log_cb(conf->get(), OnLog);
    rd_kafka_conf_set_opaque(conf->get(), &errors_);
    auto rk = NewClient(RD_KAFKA_PRODUCER, *std::move(conf));
    if (!rk.ok()) {
      out_.push_back(
          Fail(std::string(kBrokers),
               fmt::format("cannot create a client: {}", std::string(rk.status().message())),
               "fix the [kafka] properties"));
      return false;
    }
    rk_ = *std::move(rk);
    return true;
  }

  // The id of a reachable broker, after adding the cluster's result.
  std::optional<int32_t> CheckCluster() {
    const rd_kafka_metadata_t* raw = nullptr;
    const rd_kafka_resp_err_t err =
        rd_kafka_metadata(rk_.get(), /*all_topics=*/0, nullptr, &raw, options_.timeout_ms);
    MetadataPtr md(raw);
    rd_kafka_poll(rk_.get(), 0);  // Serve OnError.
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR || md->broker_cnt == 0) {
      out_.push_back(
          Fail(std::string(kBrokers),
               fmt::format("no broker answered a metadata request within {} ms: {}",
                           options_.timeout_ms, errors_.first.value_or(rd_kafka_err2str(err))),
               std::string(kSecurityFix), errors_.authentication));
      return std::nullopt;
    }
    std::string brokers;
    for (int i = 0; i < md->broker_cnt; ++i) {
      brokers += fmt::format("{}{} ({}:{})", i ? ", " : "", md->brokers[i].id, md->brokers[i].host,
                             md->brokers[i].port);
    }
    out_.push_back(Pass(std::string(kBrokers),
                        fmt::format("{} broker(s) reached: {}", md->broker_cnt, brokers)));
    broker_count_ = md->broker_cnt;
    return md->brokers[0].id;
  }

  void CheckTopic(const std::string& topic, int32_t broker);
  // With the broker's configuration, when it could be read.
  void CheckTransactions(const std::optional<std::map<std::string, std::string>>& configs);
  void CheckTransactionalIdAcls(const std::string& id,
                                const std::optional<std::map<std::string, std::string>>& configs);
  // The broker's configuration (name -> value); nullopt when it cannot be read.
  std::optional<std::map<std::string, std::string>> BrokerConfigs(int32_t broker);
  // The broker's auto.create.topics.enable; nullopt when it cannot be read.
  std::optional<bool> AutoCreate(int32_t broker);

  const BrokerCheckOptions& options_;
  int broker_count_ = 0;
  ErrorSink errors_;
  Owned<rd_kafka_t> rk_;
  CheckResults out_;
};

void BrokerChecker::CheckTopic(const std::string& topic, int32_t broker) {
  const std::string name = fmt::format("topic {}", topic);
  const Owned<rd_kafka_topic_t> rkt(rd_kafka_topic_new(rk_.get(), topic.c_str(), nullptr));
  const rd_kafka_metadata_t* raw = nullptr;
  const rd_kafka_resp_err_t err =
      rd_kafka_metadata(rk_.get(), /*all_topics=*/0, rkt.get(), &raw, options_.timeout_ms);
  MetadataPtr md(raw);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR || md->topic_cnt != 1) {
    out_.push_back(Fail(name, fmt::format("metadata request failed: {}", rd_kafka_err2str(err)),
                        std::string(kSecurityFix)));
    return;
  }
  const rd_kafka_metadata_topic_t& t = md->topics[0];
  // Only three answers matter here; the exhaustive classification of delivery errors lives in
  // the producer.
  if (t.err == RD_KAFKA_RESP_ERR_NO_ERROR) {
    out_.push_back(Pass(name, fmt::format("exists, {} partition(s)", t.partition_cnt)));
    return;
  }
  if (t.err == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED) {
    out_.push_back(Fail(name, "not authorized (TOPIC_AUTHORIZATION_FAILED)",
                        fmt::format("grant outboxd's principal Describe and Write on it, e.g. "
                                    "kafka-acls.sh --add --allow-principal User:<name> "
                                    "--operation Describe --operation Write --topic {}",
                                    topic),
                        /*permission=*/true));
    return;
  }
  if (t.err != RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
    out_.push_back(Fail(name, fmt::format("broker reports {}", rd_kafka_err2str(t.err)),
                        "check the topic on the cluster"));
    return;
  }
  const std::optional<bool> auto_create = AutoCreate(broker);
  const std::string create =
      fmt::format("kafka-topics.sh --bootstrap-server <host:port> --create --topic {}", topic);
  if (auto_create == true) {
    out_.push_back(Pass(name,
                        "does not exist; the broker creates it on the first write "
                        "(auto.create.topics.enable = true)"));
  } else if (auto_create == false) {
    out_.push_back(Fail(name, "does not exist and auto.create.topics.enable = false",
                        fmt::format("create it: {}", create)));
  } else {
    out_.push_back(Warn(name,
                        "does not exist; whether the broker auto-creates it is unknown "
                        "(its config could not be read)",
                        fmt::format("create it to be sure: {}", create)));
  }
}

std::optional<std::map<std::string, std::string>> BrokerChecker::BrokerConfigs(int32_t broker) {
  const std::string id = fmt::format("{}", broker);
  Owned<rd_kafka_ConfigResource_t> resource(
      rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_BROKER, id.c_str()));
  const Owned<rd_kafka_queue_t> queue(rd_kafka_queue_new(rk_.get()));
  rd_kafka_ConfigResource_t* resources_in[] = {resource.get()};
  rd_kafka_DescribeConfigs(rk_.get(), resources_in, 1, nullptr, queue.get());
  const Owned<rd_kafka_event_t> event(rd_kafka_queue_poll(queue.get(), options_.timeout_ms));
  const rd_kafka_DescribeConfigs_result_t* described =
      event ? rd_kafka_event_DescribeConfigs_result(event.get()) : nullptr;
  size_t resource_count = 0;
  const rd_kafka_ConfigResource_t** resources =
      described ? rd_kafka_DescribeConfigs_result_resources(described, &resource_count) : nullptr;
  if (resource_count != 1 || rd_kafka_ConfigResource_error(resources[0])) return std::nullopt;
  std::map<std::string, std::string> configs;
  size_t config_count = 0;
  const rd_kafka_ConfigEntry_t** entries =
      rd_kafka_ConfigResource_configs(resources[0], &config_count);
  for (size_t c = 0; c < config_count; ++c) {
    const char* value = rd_kafka_ConfigEntry_value(entries[c]);
    if (value) configs.emplace(rd_kafka_ConfigEntry_name(entries[c]), value);
  }
  return configs;
}

std::optional<bool> BrokerChecker::AutoCreate(int32_t broker) {
  const auto configs = BrokerConfigs(broker);
  if (!configs) return std::nullopt;
  const auto it = configs->find("auto.create.topics.enable");
  if (it == configs->end()) return std::nullopt;
  return it->second == "true";
}

void BrokerChecker::CheckTransactions(
    const std::optional<std::map<std::string, std::string>>& configs) {
  const std::string name = "kafka transactions";
  const auto number = [&](const char* key) -> std::optional<int64_t> {
    if (!configs) return std::nullopt;
    const auto it = configs->find(key);
    int64_t n = 0;
    if (it == configs->end() || !absl::SimpleAtoi(it->second, &n)) return std::nullopt;
    return n;
  };
  const std::optional<int64_t> replication = number("transaction.state.log.replication.factor");
  const std::optional<int64_t> max_timeout = number("transaction.max.timeout.ms");
  if (!replication || !max_timeout) {
    out_.push_back(Warn(name, "the broker's transaction settings could not be read",
                        "allow outboxd's principal DescribeConfigs on the cluster to check them"));
    return;
  }
  if (*replication > broker_count_) {
    out_.push_back(Fail(
        name,
        fmt::format("transaction.state.log.replication.factor = {} but the cluster has {} "
                    "broker(s): the transaction state topic cannot be created, and "
                    "init_transactions waits forever",
                    *replication, broker_count_),
        fmt::format("set transaction.state.log.replication.factor (and .min.isr) to at most {} "
                    "on the brokers, or add brokers",
                    broker_count_)));
    return;
  }
  int64_t producer_timeout = 60000;  // librdkafka's transaction.timeout.ms default.
  for (const auto& [key, value] : options_.properties) {
    if (key == "transaction.timeout.ms") (void)absl::SimpleAtoi(value, &producer_timeout);
  }
  if (producer_timeout > *max_timeout) {
    out_.push_back(Fail(name,
                        fmt::format("the producer's transaction.timeout.ms {} exceeds the broker's "
                                    "transaction.max.timeout.ms {}: init_transactions fails",
                                    producer_timeout, *max_timeout),
                        "lower transaction.timeout.ms in [kafka] or raise the broker's "
                        "transaction.max.timeout.ms"));
    return;
  }
  if (options_.transaction_split_ms >= producer_timeout) {
    out_.push_back(Warn(name,
                        fmt::format("[relay] transaction_split_ms {} is not below the producer's "
                                    "transaction.timeout.ms {}: the broker aborts a long Postgres "
                                    "transaction's Kafka transaction before outboxd splits it",
                                    options_.transaction_split_ms, producer_timeout),
                        "lower transaction_split_ms to a third of transaction.timeout.ms"));
    return;
  }
  out_.push_back(
      Pass(name, fmt::format("transaction.state.log.replication.factor {} on {} broker(s); the "
                             "producer's transaction.timeout.ms {} within the broker's {}",
                             *replication, broker_count_, producer_timeout, *max_timeout)));
}

void BrokerChecker::CheckTransactionalIdAcls(
    const std::string& id, const std::optional<std::map<std::string, std::string>>& configs) {
  const std::string name = fmt::format("kafka transactional id {}", id);
  const std::string grant = fmt::format(
      "kafka-acls.sh --add --allow-principal User:<name> --operation Write --operation "
      "Describe --transactional-id {} and --operation IdempotentWrite --cluster",
      id);
  const auto config = [&](const char* key) {
    if (!configs) return std::string();
    const auto it = configs->find(key);
    return it == configs->end() ? std::string() : it->second;
  };
  if (configs && config("authorizer.class.name").empty()) {
    out_.push_back(Pass(name,
                        "the cluster has no authorizer (authorizer.class.name is empty): "
                        "no ACL is needed"));
    return;
  }
  char errstr[512];
  Owned<rd_kafka_AclBindingFilter_t> filter(rd_kafka_AclBindingFilter_new(
      RD_KAFKA_RESOURCE_TRANSACTIONAL_ID, id.c_str(), RD_KAFKA_RESOURCE_PATTERN_MATCH, nullptr,
      nullptr, RD_KAFKA_ACL_OPERATION_ANY, RD_KAFKA_ACL_PERMISSION_TYPE_ANY, errstr,
      sizeof errstr));
  const Owned<rd_kafka_queue_t> queue(rd_kafka_queue_new(rk_.get()));
  rd_kafka_DescribeAcls(rk_.get(), filter.get(), nullptr, queue.get());
  const Owned<rd_kafka_event_t> event(rd_kafka_queue_poll(queue.get(), options_.timeout_ms));
  const rd_kafka_resp_err_t err =
      event ? rd_kafka_event_error(event.get()) : RD_KAFKA_RESP_ERR__TIMED_OUT;
  if (err == RD_KAFKA_RESP_ERR_SECURITY_DISABLED) {
    out_.push_back(Pass(name, "the cluster has no authorizer: no ACL is needed"));
    return;
  }
  const rd_kafka_DescribeAcls_result_t* result =
      err == RD_KAFKA_RESP_ERR_NO_ERROR ? rd_kafka_event_DescribeAcls_result(event.get()) : nullptr;
  if (result == nullptr) {
    out_.push_back(Warn(name,
                        fmt::format("its ACLs cannot be read ({}); outboxd run names "
                                    "TRANSACTIONAL_ID_AUTHORIZATION_FAILED if they are missing",
                                    rd_kafka_err2name(err)),
                        fmt::format("make sure of them: {}", grant)));
    return;
  }
  size_t count = 0;
  const rd_kafka_AclBinding_t** acls = rd_kafka_DescribeAcls_result_acls(result, &count);
  std::string writers;
  for (size_t i = 0; i < count; ++i) {
    const rd_kafka_AclOperation_t op = rd_kafka_AclBinding_operation(acls[i]);
    if (rd_kafka_AclBinding_permission_type(acls[i]) != RD_KAFKA_ACL_PERMISSION_TYPE_ALLOW ||
        (op != RD_KAFKA_ACL_OPERATION_WRITE && op != RD_KAFKA_ACL_OPERATION_ALL)) {
      continue;
    }
    writers +=
        fmt::format("{}{}", writers.empty() ? "" : ", ", rd_kafka_AclBinding_principal(acls[i]));
  }
  if (writers.empty()) {
    if (config("allow.everyone.if.no.acl.found") == "true" && count == 0) {
      out_.push_back(Pass(name, "no ACL names it, and allow.everyone.if.no.acl.found = true"));
      return;
    }
    // A super user needs none: only the run can tell.
    out_.push_back(Warn(name,
                        "no ACL allows writing with it; unless outboxd's principal is among "
                        "super.users, init_transactions fails",
                        grant));
    return;
  }
  out_.push_back(Pass(name, fmt::format("Write allowed for {}", writers)));
}

}  // namespace

CheckResults CheckBrokers(const BrokerCheckOptions& options) {
  return BrokerChecker(options).Run();
}

}  // namespace outboxd::kafka
