#include "kafka/producer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "common/log.h"
#include "common/strings.h"
#include "kafka/client.h"
#include "kafka/delivery_error.h"
#include "kafka/stats.h"

namespace outboxd::kafka {
namespace {

// Properties whose change would break per-aggregate order or at-least-once delivery.
// No local message timeout: a record that times out in the queue while a newer record of its
// partition is still delivered puts the newer one first, and the replay cannot undo that (the
// chaos suite showed it). A broker outage is handled by backpressure instead.
constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kPinnedProperties = {{
    {"enable.idempotence", "true"},
    {"acks", "all"},
    {"message.timeout.ms", "0"},
    {"delivery.timeout.ms", "0"},  // librdkafka's alias of message.timeout.ms.
}};

// How long the loop may wait, once per topic and producer, for the topic's partitions. Without
// asking, librdkafka learns them only at its next one-second topic scan: the first records of
// every new producer waited up to a second in its queue (measured: 0.8 s of a 2.3 s drain).
constexpr int kFirstMetadataTimeoutMs = 500;

// A transactional call's outcome (see Producer::InitTransactions); takes `error`.
absl::Status TransactionStatus(rd_kafka_error_t* error, std::string_view call) {
  if (error == nullptr) return absl::OkStatus();
  const Owned<rd_kafka_error_t> owned(error);
  const std::string message = Concat("Kafka ", call, " failed: ", rd_kafka_error_name(error), ": ",
                                     rd_kafka_error_string(error));
  switch (ClassifyTransactionError(error)) {
    case ErrorVerdict::kFenced:
      return absl::AlreadyExistsError(FencedMessage(message));
    case ErrorVerdict::kOperatorError:
      return absl::PermissionDeniedError(
          Concat(message,
                 "; allow the principal WRITE and DESCRIBE on TransactionalId and "
                 "IDEMPOTENT_WRITE on the cluster, and check [kafka] credentials"));
    case ErrorVerdict::kRecordRejected:
    case ErrorVerdict::kReplay:
    case ErrorVerdict::kAbortTransaction:
      return absl::UnavailableError(message);
  }
  return absl::UnavailableError(message);
}

class RdKafkaProducer final : public Producer {
 public:
  explicit RdKafkaProducer(DeliveryHandler& handler) : handler_(handler) {}
  ~RdKafkaProducer() override;
  RdKafkaProducer(const RdKafkaProducer&) = delete;
  RdKafkaProducer& operator=(const RdKafkaProducer&) = delete;

  absl::Status Init(Owned<rd_kafka_conf_t> conf);

  absl::Status Produce(const Record& record, uint64_t tag) override;
  int event_fd() const override { return event_pipe_[0]; }
  void Poll(bool event_fd_readable) override;
  bool Flush(int timeout_ms) override;
  const std::optional<std::string>& fatal_error() const override { return fatal_error_; }
  const std::optional<std::string>& operator_error() const override { return operator_error_; }
  bool brokers_down() const override { return brokers_down_; }
  uint64_t retries() const override { return retries_; }
  bool fenced() const override { return fenced_; }
  absl::Status InitTransactions(int timeout_ms) override;
  absl::Status BeginTransaction() override {
    return TransactionStatus(rd_kafka_begin_transaction(rk_.get()), "begin_transaction");
  }
  absl::Status CommitTransaction(int timeout_ms) override {
    return TransactionStatus(rd_kafka_commit_transaction(rk_.get(), timeout_ms),
                             "commit_transaction");
  }
  absl::Status AbortTransaction(int timeout_ms) override {
    return TransactionStatus(rd_kafka_abort_transaction(rk_.get(), timeout_ms),
                             "abort_transaction");
  }

 private:
  static void DeliveryReport(rd_kafka_t* rk, const rd_kafka_message_t* message, void* opaque);
  // Runs on librdkafka's threads; log::Write is safe there.
  static void LogCallback(const rd_kafka_t* rk, int level, const char* facility,
                          const char* message);
  static void ErrorCallback(rd_kafka_t* rk, int err, const char* reason, void* opaque);
  static int StatsCallback(rd_kafka_t* rk, char* json, size_t json_len, void* opaque);
  void OnReport(const rd_kafka_message_t& message);
  void OnStats(const ProducerStats& stats);
  void MarkReachable();
  void OnError(rd_kafka_resp_err_t err, const char* reason);
  // The producer is in its fatal state: reads the cause once (fenced or not) and logs it. A
  // produce call or a delivery report may see _FATAL before the error callback is served.
  void NoteFatalError();
  // _FATAL as the status a caller acts on: fenced (AlreadyExists, exit 8) or a rebuild.
  absl::Status FatalStatus();
  // The cached handle of `topic`; created, with its metadata fetched, on first use.
  rd_kafka_topic_t* Topic(const std::string& topic);

  DeliveryHandler& handler_;
  Owned<rd_kafka_t> rk_;
  // One handle per topic, so a record costs no lookup by name inside librdkafka.
  absl::flat_hash_map<std::string, Owned<rd_kafka_topic_t>> topics_;
  int event_pipe_[2] = {-1, -1};
  std::optional<std::string> fatal_error_;
  bool fenced_ = false;
  std::optional<std::string> operator_error_;
  bool brokers_down_ = false;
  uint64_t retries_ = 0;
  DeliveryFailure failure_scratch_;  // Reused for failed reports; views valid during OnFailed.
};

void SetNonBlocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

absl::Status CheckPinned(const std::string& name, const std::string& value) {
  for (const auto& [pinned, required] : kPinnedProperties) {
    const bool same = value == required || (name == "acks" && value == "-1");
    if (name == pinned && !same) {
      return absl::InvalidArgumentError(Concat(
          "[kafka] \"", name, "\" = \"", value, "\" is not allowed: outboxd needs ", pinned, " = ",
          required, " to keep per-aggregate order and at-least-once delivery; remove it"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<std::pair<std::string, std::string>> DefaultProducerProperties() {
  return {
      {"client.id", "outboxd"},
      {"enable.idempotence", "true"},     // acks=all, ordered retries (invariant 3).
      {"message.timeout.ms", "0"},        // Never drop a record locally (kPinnedProperties).
      {"partitioner", "murmur2_random"},  // Same partition per key as the Java client.
      // p99 commit→append within 2 ms of producing each row at once (bench/run, steady 1k/s:
      // linger 2 +2.3 ms, 1 +1.0 ms, 0 -0.1 ms but +8.8 ms at 5k/s, where 1 was -5.0 ms).
      {"linger.ms", "1"},
      {"statistics.interval.ms", "5000"},  // For outboxd_kafka_retries_total.
      // Bounded memory instead of librdkafka's 1 GiB: each queued message also costs a few
      // hundred bytes of bookkeeping that the kbytes limit does not count, so cap both.
      // Peak RSS follows the kbytes cap (1024 -> 23 MB, 2048 -> 25.5 MB, 4096 -> 31 MB in a
      // drain of 1 KB rows); 2048 drained those 1 KB rows 26% faster than 1024 and 8 KB rows
      // 8% faster (median of 3 interleaved runs each, bench/run shapes on 2 cores), while
      // 400 B rows moved within noise. Bigger rows need more bytes in flight to keep the
      // broker busy; past 2048 the gain stopped.
      {"queue.buffering.max.kbytes", "2048"},
      {"queue.buffering.max.messages", "10000"},
  };
}

absl::StatusOr<std::unique_ptr<Producer>> CreateProducer(
    const std::vector<std::pair<std::string, std::string>>& properties, DeliveryHandler& handler) {
  return CreateTransactionalProducer(properties, "", handler);
}

absl::StatusOr<std::unique_ptr<Producer>> CreateTransactionalProducer(
    const std::vector<std::pair<std::string, std::string>>& properties,
    const std::string& transactional_id, DeliveryHandler& handler) {
  for (const auto& [name, value] : properties) {
    if (auto s = CheckPinned(name, value); !s.ok()) return s;
  }
  Properties all = DefaultProducerProperties();
  all.insert(all.end(), properties.begin(), properties.end());
  if (!transactional_id.empty()) all.emplace_back("transactional.id", transactional_id);
  auto conf = BuildConf(all);
  if (!conf.ok()) return conf.status();
  auto producer = std::make_unique<RdKafkaProducer>(handler);
  if (auto s = producer->Init(*std::move(conf)); !s.ok()) return s;
  return producer;
}

namespace {

absl::Status RdKafkaProducer::Init(Owned<rd_kafka_conf_t> conf) {
  rd_kafka_conf_set_opaque(conf.get(), this);
  rd_kafka_conf_set_dr_msg_cb(conf.get(), &RdKafkaProducer::DeliveryReport);
  rd_kafka_conf_set_error_cb(conf.get(), &RdKafkaProducer::ErrorCallback);
  rd_kafka_conf_set_log_cb(conf.get(), &RdKafkaProducer::LogCallback);
  rd_kafka_conf_set_stats_cb(conf.get(), &RdKafkaProducer::StatsCallback);
  auto rk = NewClient(RD_KAFKA_PRODUCER, std::move(conf));
  if (!rk.ok()) {
    return absl::InvalidArgumentError(
        Concat("cannot create the Kafka producer: ", std::string(rk.status().message()),
               "; fix the [kafka] properties (for TLS and SASL: security.protocol, sasl.* and "
               "ssl.*; see librdkafka's CONFIGURATION.md)"));
  }
  rk_ = *std::move(rk);
  if (::pipe2(event_pipe_, O_CLOEXEC) != 0) {
    return absl::ResourceExhaustedError("cannot create the Kafka event pipe");
  }
  SetNonBlocking(event_pipe_[0]);
  SetNonBlocking(event_pipe_[1]);
  const Owned<rd_kafka_queue_t> main_queue(rd_kafka_queue_get_main(rk_.get()));
  rd_kafka_queue_io_event_enable(main_queue.get(), event_pipe_[1], "1", 1);
  return absl::OkStatus();
}

RdKafkaProducer::~RdKafkaProducer() {
  if (rk_) {
    // Whatever is still queued will be replayed from the confirmed LSN; do not wait for it.
    rd_kafka_purge(rk_.get(), RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
    topics_.clear();  // Handles go before their rd_kafka_t.
    rk_.reset();
  }
  for (int fd : event_pipe_) {
    if (fd >= 0) ::close(fd);
  }
}

rd_kafka_topic_t* RdKafkaProducer::Topic(const std::string& topic) {
  auto it = topics_.find(topic);
  if (it != topics_.end()) return it->second.get();
  Owned<rd_kafka_topic_t> rkt(rd_kafka_topic_new(rk_.get(), topic.c_str(), nullptr));
  if (!rkt) return nullptr;
  const rd_kafka_metadata_t* metadata = nullptr;
  // Best effort: on a timeout librdkafka's own scan still finds the partitions later.
  if (rd_kafka_metadata(rk_.get(), 0, rkt.get(), &metadata, kFirstMetadataTimeoutMs) ==
      RD_KAFKA_RESP_ERR_NO_ERROR) {
    NoteBrokerReached();
  }
  const Owned<const rd_kafka_metadata_t> owned_metadata(metadata);
  return topics_.emplace(topic, std::move(rkt)).first->second.get();
}

absl::Status RdKafkaProducer::Produce(const Record& record, uint64_t tag) {
  rd_kafka_topic_t* rkt = Topic(record.topic);
  Owned<rd_kafka_headers_t> headers;
  if (!record.headers.empty()) {
    headers.reset(rd_kafka_headers_new(record.headers.size()));
    for (const Header& h : record.headers) {
      rd_kafka_header_add(headers.get(), h.name.data(), static_cast<ssize_t>(h.name.size()),
                          h.value ? h.value->data() : nullptr,
                          h.value ? static_cast<ssize_t>(h.value->size()) : 0);
    }
  }
  const std::string& topic = record.topic;
  // The V_ macros cast their arguments, so compute plain pointers and sizes first. An empty
  // key keeps its non-null pointer: murmur2_random hashes it (as Java hashes byte[0]) and
  // only a null pointer means "no key, random partition".
  const void* key = record.key ? record.key->data() : nullptr;
  const size_t key_size = record.key ? record.key->size() : 0;
  void* value = record.value ? const_cast<char*>(record.value->data()) : nullptr;
  const size_t value_size = record.value ? record.value->size() : 0;
  // No handle: librdkafka refused the topic (e.g. its name); its error says why.
  const rd_kafka_resp_err_t err =
      rkt == nullptr ? rd_kafka_last_error()
                     : rd_kafka_producev(
                           rk_.get(), RD_KAFKA_V_RKT(rkt), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                           RD_KAFKA_V_PARTITION(record.partition < 0 ? RD_KAFKA_PARTITION_UA
                                                                     : record.partition),
                           RD_KAFKA_V_TIMESTAMP(record.timestamp_ms), RD_KAFKA_V_KEY(key, key_size),
                           RD_KAFKA_V_VALUE(value, value_size), RD_KAFKA_V_HEADERS(headers.get()),
                           // The tag travels as the opaque: never dereferenced, only cast back.
                           RD_KAFKA_V_OPAQUE(
                               reinterpret_cast<void*>(tag)),  // NOLINT(performance-no-int-to-ptr)
                           RD_KAFKA_V_END);
  if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
    static_cast<void>(headers.release());  // Now owned by the queued message.
    return absl::OkStatus();
  }
  if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
    return absl::ResourceExhaustedError("Kafka producer queue is full");
  }
  // Fenced while this instance was paused, it must stop rather than rebuild and fence back.
  if (err == RD_KAFKA_RESP_ERR__FATAL) return FatalStatus();
  const std::string reason =
      Concat("Kafka rejected the record for topic ", topic, ": ", DescribeError(err));
  switch (ClassifyError(err)) {
    case ErrorVerdict::kRecordRejected:
      return absl::InvalidArgumentError(reason);
    case ErrorVerdict::kOperatorError:
      return absl::PermissionDeniedError(Concat(reason, "; ", OperatorFix(err, topic)));
    case ErrorVerdict::kFenced:
      return absl::AlreadyExistsError(ProducerFencedMessage(reason));
    case ErrorVerdict::kReplay:
    case ErrorVerdict::kAbortTransaction:  // Not from a produce call; replaying is safe.
      return absl::UnavailableError(reason);
  }
  return absl::UnavailableError(reason);
}

absl::Status RdKafkaProducer::InitTransactions(int timeout_ms) {
  rd_kafka_error_t* error = rd_kafka_init_transactions(rk_.get(), timeout_ms);
  // Retriable, and resumed by the next call (librdkafka keeps the request going).
  if (error != nullptr && rd_kafka_error_code(error) == RD_KAFKA_RESP_ERR__TIMED_OUT) {
    const Owned<rd_kafka_error_t> owned(error);
    return absl::DeadlineExceededError(
        Concat("Kafka init_transactions: no transaction coordinator answered (",
               rd_kafka_error_string(error), ")"));
  }
  return TransactionStatus(error, "init_transactions");
}

void RdKafkaProducer::Poll(bool event_fd_readable) {
  // A short read emptied the pipe: another read would only fail with EAGAIN.
  char drain[64];
  while (event_fd_readable && ::read(event_pipe_[0], drain, sizeof drain) == sizeof drain) {
  }
  // Bounded so a flood of reports cannot starve the replication side.
  for (int i = 0; i < 64 && rd_kafka_poll(rk_.get(), 0) > 0; ++i) {
  }
}

bool RdKafkaProducer::Flush(int timeout_ms) {
  return rd_kafka_flush(rk_.get(), timeout_ms) == RD_KAFKA_RESP_ERR_NO_ERROR;
}

void RdKafkaProducer::DeliveryReport(rd_kafka_t* /*rk*/, const rd_kafka_message_t* message,
                                     void* opaque) {
  static_cast<RdKafkaProducer*>(opaque)->OnReport(*message);
}

std::optional<std::string_view> View(const void* data, size_t size) {
  if (data == nullptr) return std::nullopt;
  return std::string_view(static_cast<const char*>(data), size);
}

void RdKafkaProducer::OnReport(const rd_kafka_message_t& message) {
  const auto tag = reinterpret_cast<uint64_t>(message._private);
  if (message.err == RD_KAFKA_RESP_ERR_NO_ERROR) {
    NoteBrokerReached();
    if (brokers_down_) MarkReachable();
    handler_.OnDelivered(tag);
    return;
  }
  DeliveryFailure& f = failure_scratch_;
  if (message.err == RD_KAFKA_RESP_ERR__FATAL) NoteFatalError();
  f.verdict = message.err == RD_KAFKA_RESP_ERR__FATAL && fenced_ ? ErrorVerdict::kFenced
                                                                 : ClassifyError(message.err);
  f.code = rd_kafka_err2name(message.err);
  f.reason = DescribeError(message.err);
  f.topic = rd_kafka_topic_name(message.rkt);
  f.operator_fix = OperatorFix(message.err, f.topic);
  f.key = View(message.key, message.key_len);
  f.value = View(message.payload, message.len);
  f.headers.clear();
  rd_kafka_headers_t* headers = nullptr;
  // rd_kafka_message_headers takes a non-const message but only reads it.
  if (rd_kafka_message_headers(&message, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR) {
    const char* name = nullptr;
    const void* value = nullptr;
    size_t size = 0;
    for (size_t i = 0;
         rd_kafka_header_get_all(headers, i, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR;
         ++i) {
      f.headers.push_back({name, View(value, size)});
    }
  }
  handler_.OnFailed(tag, f);
}

void RdKafkaProducer::MarkReachable() {
  log::Info("Kafka is reachable again");
  brokers_down_ = false;
}

void RdKafkaProducer::LogCallback(const rd_kafka_t* /*rk*/, int level, const char* facility,
                                  const char* message) {
  // syslog levels: 0-3 error, 4 warning, 5-6 notice/info, 7 debug.
  const log::Level ours = level <= 3   ? log::Level::kError
                          : level == 4 ? log::Level::kWarn
                          : level <= 6 ? log::Level::kInfo
                                       : log::Level::kDebug;
  if (log::Enabled(ours)) log::Write(ours, Concat("librdkafka ", facility, ": ", message));
}

void RdKafkaProducer::ErrorCallback(rd_kafka_t* /*rk*/, int err, const char* reason, void* opaque) {
  static_cast<RdKafkaProducer*>(opaque)->OnError(static_cast<rd_kafka_resp_err_t>(err), reason);
}

int RdKafkaProducer::StatsCallback(rd_kafka_t* /*rk*/, char* json, size_t json_len, void* opaque) {
  // Served by rd_kafka_poll on the loop thread, like delivery reports.
  if (auto stats = ParseProducerStats({json, json_len})) {
    static_cast<RdKafkaProducer*>(opaque)->OnStats(*stats);
  }
  return 0;  // librdkafka frees `json`.
}

void RdKafkaProducer::OnStats(const ProducerStats& stats) {
  retries_ = stats.retries;
  // librdkafka reports only the loss of all brokers, never their return; an idle producer has
  // no delivery to show it either, so the broker states say when Kafka is reachable again.
  if (stats.brokers_up > 0) NoteBrokerReached();
  if (brokers_down_ && stats.brokers_up > 0) MarkReachable();
}

void RdKafkaProducer::NoteFatalError() {
  if (fatal_error_) return;
  char fatal[512];
  const rd_kafka_resp_err_t cause = rd_kafka_fatal_error(rk_.get(), fatal, sizeof fatal);
  fatal_error_ = Concat(rd_kafka_err2name(cause), ": ", fatal);
  fenced_ = ClassifyError(cause) == ErrorVerdict::kFenced;
  if (fenced_) {
    log::Error("{}", ProducerFencedMessage(*fatal_error_));
  } else {
    log::Error("Kafka producer hit a fatal error: {}; restarting from the confirmed LSN",
               *fatal_error_);
  }
}

absl::Status RdKafkaProducer::FatalStatus() {
  NoteFatalError();
  if (fenced_) return absl::AlreadyExistsError(ProducerFencedMessage(*fatal_error_));
  return absl::UnavailableError(Concat("Kafka producer failed: ", *fatal_error_));
}

void RdKafkaProducer::OnError(rd_kafka_resp_err_t err, const char* reason) {
  if (err == RD_KAFKA_RESP_ERR__FATAL) {
    NoteFatalError();
    return;
  }
  if (std::optional<std::string> message = OperatorErrorMessage(err, reason, ReachedABroker())) {
    if (!operator_error_) log::Error("{}", *message);
    operator_error_ = std::move(message);
    return;
  }
  if (err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN) {
    if (!brokers_down_) {
      log::Warn("Kafka is unreachable ({}); holding the slot position and retrying", reason);
    }
    brokers_down_ = true;
    return;
  }
  // Connection faults are already in librdkafka's own log lines; repeat nothing else.
  if (err == RD_KAFKA_RESP_ERR__TRANSPORT || err == RD_KAFKA_RESP_ERR__RESOLVE) return;
  log::Warn("Kafka: {} ({})", reason, rd_kafka_err2name(err));
}

}  // namespace

}  // namespace outboxd::kafka
