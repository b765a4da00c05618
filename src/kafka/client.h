#pragma once
// The one owner of librdkafka handles in outboxd: the unique_ptr types that destroy each kind
// of handle, and the functions that build a configuration and a client from the [kafka]
// properties. Everything else in src/kafka creates and holds librdkafka objects through these;
// nothing outside src/kafka sees librdkafka at all.

#include <librdkafka/rdkafka.h>

#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace outboxd::kafka {

// The version of the librdkafka this process runs with (not the headers it was built with),
// e.g. "2.8.0".
std::string LibraryVersion();

// Whether a client of this process has reached a Kafka broker (a metadata answer, a delivered
// record, statistics with a broker up). Once set it stays set, across producer rebuilds: a
// failed TLS handshake after that is an outage, before it the settings' fault (see
// OperatorErrorMessage). Thread-safe.
bool ReachedABroker();
void NoteBrokerReached();

// librdkafka properties in their string form, in the order they are applied.
using Properties = std::vector<std::pair<std::string, std::string>>;

// Destroys any librdkafka handle with the function librdkafka pairs with its constructor.
struct Deleter {
  void operator()(rd_kafka_t* p) const { rd_kafka_destroy(p); }
  void operator()(rd_kafka_conf_t* p) const { rd_kafka_conf_destroy(p); }
  void operator()(rd_kafka_topic_t* p) const { rd_kafka_topic_destroy(p); }
  void operator()(rd_kafka_queue_t* p) const { rd_kafka_queue_destroy(p); }
  void operator()(rd_kafka_event_t* p) const { rd_kafka_event_destroy(p); }
  void operator()(rd_kafka_message_t* p) const { rd_kafka_message_destroy(p); }
  void operator()(rd_kafka_headers_t* p) const { rd_kafka_headers_destroy(p); }
  void operator()(rd_kafka_error_t* p) const { rd_kafka_error_destroy(p); }
  void operator()(const rd_kafka_metadata_t* p) const { rd_kafka_metadata_destroy(p); }
  void operator()(rd_kafka_topic_partition_list_t* p) const {
    rd_kafka_topic_partition_list_destroy(p);
  }
  void operator()(rd_kafka_AdminOptions_t* p) const { rd_kafka_AdminOptions_destroy(p); }
  void operator()(rd_kafka_NewTopic_t* p) const { rd_kafka_NewTopic_destroy(p); }
  void operator()(rd_kafka_ConfigResource_t* p) const { rd_kafka_ConfigResource_destroy(p); }
  // Also rd_kafka_AclBindingFilter_t, the same type.
  void operator()(rd_kafka_AclBinding_t* p) const { rd_kafka_AclBinding_destroy(p); }
};

// An owned librdkafka handle, e.g. Owned<rd_kafka_t> or Owned<const rd_kafka_metadata_t>.
template <typename T>
using Owned = std::unique_ptr<T, Deleter>;

// Destroys clients on threads of their own, and waits for them when destroyed itself:
// rd_kafka_destroy of a closed consumer took a second in about one start-up of four (its
// threads finishing a wait), a second that a start-up or a take-over should not pay.
class BackgroundDestroyer {
 public:
  BackgroundDestroyer() = default;
  ~BackgroundDestroyer();
  BackgroundDestroyer(const BackgroundDestroyer&) = delete;
  BackgroundDestroyer& operator=(const BackgroundDestroyer&) = delete;

  void Destroy(Owned<rd_kafka_t> client);

 private:
  std::vector<std::future<void>> pending_;
};

// A configuration holding `properties`, applied in order. InvalidArgument names the first
// property librdkafka rejects, with librdkafka's reason and where to look it up.
absl::StatusOr<Owned<rd_kafka_conf_t>> BuildConf(const Properties& properties);

// A client of `type` from `conf` (consumed on success and failure alike). InvalidArgument with
// librdkafka's reason when it refuses the configuration (e.g. TLS or SASL settings).
absl::StatusOr<Owned<rd_kafka_t>> NewClient(rd_kafka_type_t type, Owned<rd_kafka_conf_t> conf);

// The properties among `properties` that say how to reach and authenticate to the brokers
// (bootstrap.servers, security.protocol, sasl.*, ssl.*, client.id, socket.*, ...). Producer
// tuning (linger.ms, acks, ...) does not apply to an admin or consumer client and would only
// make librdkafka warn.
Properties ConnectionProperties(const Properties& properties);

// A short-lived client for one chore (an admin request, reading a topic): the connection
// settings among `properties`, then `settings`. It logs nothing (the relay's producer already
// logs the brokers' complaints); an authentication, TLS or authorization failure reported to
// its error callback is stored in `*operator_error` (the message names the fix), which must
// outlive the client and is written only inside rd_kafka_poll / consumer_poll on the caller's
// thread. InvalidArgument as BuildConf and NewClient.
absl::StatusOr<Owned<rd_kafka_t>> NewHelperClient(rd_kafka_type_t type,
                                                  const Properties& properties,
                                                  const Properties& settings,
                                                  std::optional<std::string>* operator_error);

}  // namespace outboxd::kafka
