#pragma once
// Topic creation with per-topic configs (the harness's CreateTopic takes none).

#include <map>
#include <string>

#include "absl/status/status.h"

namespace outboxd::faults {

// Creates `topic` (replication factor 1) with `configs` such as {"max.message.bytes", "1024"}
// and waits for the broker's answer. AlreadyExists if it does.
absl::Status CreateTopicWithConfigs(const std::string& bootstrap, const std::string& topic,
                                    int partitions,
                                    const std::map<std::string, std::string>& configs);

}  // namespace outboxd::faults
