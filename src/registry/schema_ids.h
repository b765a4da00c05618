#pragma once
// encoding::SchemaIds over a RegistryClient: subject names by the configured strategy, ids cached
// per (subject, schema) so the hot path makes no request and no allocation once warm, and a
// registry that cannot be reached turned into backpressure with a retry delay.

#include <chrono>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "common/clock.h"
#include "config/config.h"
#include "encoding/avro/schema_ids.h"
#include "registry/registry_client.h"

namespace outboxd::registry {

// Appends the subject of a record's key or value schema to `out` (cleared first):
// TopicNameStrategy "<topic>-key"/"<topic>-value", RecordNameStrategy "<name>",
// TopicRecordNameStrategy "<topic>-<name>".
void SubjectName(config::SubjectNameStrategy strategy, std::string_view topic, bool is_key,
                 std::string_view name, std::string& out);

class CachedSchemaIds final : public encoding::SchemaIds {
 public:
  // `client` is owned; `cfg` and `clock` must outlive this object.
  CachedSchemaIds(const config::SchemaRegistryConfig& cfg, std::unique_ptr<RegistryClient> client,
                  const Clock& clock);

  // Runs on the replication loop thread (not thread-safe).
  absl::StatusOr<int32_t> IdFor(std::string_view topic, bool is_key, std::string_view name,
                                std::string_view schema_json) override;

 private:
  absl::StatusOr<int32_t> Fetch(std::string_view schema_json);

  const config::SchemaRegistryConfig& cfg_;
  std::unique_ptr<RegistryClient> client_;
  const Clock& clock_;
  std::string subject_;  // The subject being resolved, reused.
  // subject -> schema text -> id; std::string keys are looked up by string_view.
  absl::flat_hash_map<std::string, absl::flat_hash_map<std::string, int32_t>> ids_;
  std::chrono::steady_clock::time_point retry_at_{};  // No request before, after a failure.
  std::chrono::milliseconds backoff_{0};
  std::string last_failure_;
};

}  // namespace outboxd::registry
