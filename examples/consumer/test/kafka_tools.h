#pragma once
// What the consumer test does to Kafka besides outboxd: write records, read a group's
// committed position, and forget a group (so its next member starts from the beginning).

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace consumer_test {

// Produces (key, value) records to `topic` in order and waits until the broker acknowledged
// them all.
absl::Status Produce(const std::string& bootstrap, const std::string& topic,
                     const std::vector<std::pair<std::string, std::string>>& records);

// True when `group` has committed, on every partition of `topic`, the partition's end offset:
// every record written so far was applied and its offset committed.
absl::StatusOr<bool> GroupCaughtUp(const std::string& bootstrap, const std::string& group,
                                   const std::string& topic);

// Deletes `group` and its committed offsets; the group must have no members.
absl::Status DeleteGroup(const std::string& bootstrap, const std::string& group);

}  // namespace consumer_test
