#pragma once
// Reading a topic outboxd keeps its own state in (the position topic) to its end, for the
// newest value of one key.

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "kafka/client.h"

namespace outboxd::kafka {

// What ReadLatestValue found: whether `topic` exists, and the newest value of the key.
struct LatestValue {
  bool topic_exists = false;
  std::optional<std::string> value;
};

// Consumes every partition of `topic` from its start to its current end (no consumer group,
// nothing committed) through a short-lived consumer on the connection settings among
// `properties`, and returns the value of the last record whose key is `key` (nullopt when
// there is none, the last one is a tombstone, or the topic does not exist) and whether the
// topic exists. read_committed:
// records of aborted Kafka transactions are never seen, and the end is the last stable offset
// (a transaction still open is not waited for). Blocks up to about `timeout_ms`. Unavailable
// on timeout; PermissionDenied when the client cannot authenticate or is not authorized;
// InvalidArgument for a bad property. With `destroyer`, the consumer is destroyed there.
absl::StatusOr<LatestValue> ReadLatestValue(const Properties& properties, const std::string& topic,
                                            const std::string& key, int timeout_ms,
                                            BackgroundDestroyer* destroyer = nullptr);

}  // namespace outboxd::kafka
