#pragma once
// The two librdkafka chores of the position store: creating its compacted topic, and reading a
// topic to its end for the newest value of one key.

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "librdkafka/rdkafka.h"

namespace outboxd::position {

// Creates `topic` (one partition, the brokers' replication factor, cleanup.policy=compact)
// through `rk`'s admin API; OK when it exists already. Unavailable on timeout,
// PermissionDenied when the principal may not create it (the message says what to grant).
absl::Status CreateCompactedTopic(rd_kafka_t* rk, const std::string& topic, int timeout_ms);

// Consumes every partition of `topic` from its start to its current end (no consumer group,
// nothing committed) and returns the value of the last record whose key is `key`; nullopt when
// there is none or the topic does not exist. Takes ownership of `conf`. Unavailable on timeout.
absl::StatusOr<std::optional<std::string>> ReadLatestValue(rd_kafka_conf_t* conf,
                                                           const std::string& topic,
                                                           const std::string& key, int timeout_ms);

}  // namespace outboxd::position
