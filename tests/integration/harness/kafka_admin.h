#pragma once
// Topic administration through librdkafka's admin API.

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace outboxd::it {

// Creates `topic` with `partitions` partitions (replication factor 1) and `configs` such as
// {"max.message.bytes", "1024"}, and waits for the broker's answer. AlreadyExists if it does.
absl::Status CreateTopic(const std::string& bootstrap, const std::string& topic, int partitions,
                         const std::map<std::string, std::string>& configs = {});

// Deletes `topics`, ignoring those that do not exist. For clean-up: best effort.
absl::Status DeleteTopics(const std::string& bootstrap, const std::vector<std::string>& topics);

}  // namespace outboxd::it
