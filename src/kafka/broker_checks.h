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
};

// One result for the cluster ("kafka brokers") and, if it was reached, one per topic: exists,
// missing but auto-created (PASS with a note), missing (FAIL), or not authorized (FAIL,
// permission). Blocks for at most about (2 + topics) * timeout_ms.
CheckResults CheckBrokers(const BrokerCheckOptions& options);

}  // namespace outboxd::kafka
