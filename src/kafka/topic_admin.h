#pragma once
// Creating a topic outboxd keeps its own state in (the position topic) through librdkafka's
// admin API.

#include <string>

#include "absl/status/status.h"
#include "kafka/client.h"

namespace outboxd::kafka {

// Creates `topic` with one partition, the brokers' default replication factor and
// cleanup.policy=compact, through a short-lived client on the connection settings among
// `properties`; OK when it exists already. Blocks up to about `timeout_ms`. Unavailable on
// timeout or a broker error; PermissionDenied when the principal may not create it or cannot
// authenticate (the message says what to grant or fix); InvalidArgument for a bad property.
absl::Status CreateCompactedTopic(const Properties& properties, const std::string& topic,
                                  int timeout_ms);

}  // namespace outboxd::kafka
