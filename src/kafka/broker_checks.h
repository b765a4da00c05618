#pragma once
// `outboxd check` against the live Kafka cluster: reachability with the configured client
// properties, and each topic outboxd will write to. Read-only: metadata and broker configs
// only, and topic auto-creation is disabled for the metadata requests.

#include <string>
#include <utility>
#include <vector>

#include "common/check_result.h"

namespace outboxd::kafka {

struct BrokerCheckOptions {
  // librdkafka properties as configured ([kafka]); bootstrap.servers among them.
  std::vector<std::pair<std::string, std::string>> properties;
  // Topics outboxd writes whatever the rows hold: the dead-letter topic, and the topic when
  // the pattern has no placeholder.
  std::vector<std::string> topics;
  int timeout_ms = 5000;  // Per metadata or config request.
  // delivery = "exactly_once": the producers' transactional.ids, one per slot (none: not
  // checked), and [relay] transaction_split_ms.
  std::vector<std::string> transactional_ids{};
  int transaction_split_ms = 0;
};

// One result for the cluster ("kafka brokers") and, if it was reached, one per topic: exists,
// missing but auto-created (PASS with a note), missing (FAIL), or not authorized (FAIL,
// permission). With transactional_ids, also "kafka transactions" (the transaction state log
// can be written with this many brokers; the broker accepts the producer's
// transaction.timeout.ms) and a "kafka transactional id" per id (ACLs, when the cluster has an
// authorizer and lets outboxd read them). Blocks for at most about (4 + topics) * timeout_ms.
CheckResults CheckBrokers(const BrokerCheckOptions& options);

}  // namespace outboxd::kafka
