#pragma once
// Reads back what outboxd published: every record of a set of topics, from the beginning.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace outboxd::it {

struct KafkaRecord {
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;
  std::optional<std::string> key;    // nullopt: null key
  std::optional<std::string> value;  // nullopt: null value (tombstone)
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;

  // Value of the first header called `name`; nullopt if absent or null.
  std::optional<std::string> Header(absl::string_view name) const;
};

struct ConsumeOptions {
  std::vector<std::string> topics;  // read all partitions of each, from offset 0
  size_t min_records = 0;           // stop once this many arrived and the partitions are drained
  absl::Duration timeout = absl::Seconds(60);
};

// Reads records of `options.topics` from the beginning (manual assignment, no commits) until
// at least `min_records` arrived, every topic exists and every partition is at its end; or
// until the timeout, returning what arrived so far (the caller compares counts). Topics that
// do not exist yet are picked up when they appear. Errors only for client failures.
// `client_properties` are extra librdkafka consumer settings applied after the defaults, e.g.
// security.protocol, sasl.* and ssl.* for a SASL_SSL listener.
absl::StatusOr<std::vector<KafkaRecord>> ConsumeFromBeginning(
    const std::string& bootstrap, const ConsumeOptions& options,
    const std::map<std::string, std::string>& client_properties = {});

}  // namespace outboxd::it
