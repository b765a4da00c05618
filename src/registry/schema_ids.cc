#include "registry/schema_ids.h"

#include <algorithm>

#include "absl/strings/string_view.h"
#include "common/log.h"
#include "common/status.h"
#include "fmt/format.h"

namespace outboxd::registry {
namespace {

constexpr std::chrono::milliseconds kFirstBackoff{250};
constexpr std::chrono::milliseconds kMaxBackoff{10000};

}  // namespace

void SubjectName(config::SubjectNameStrategy strategy, std::string_view topic, bool is_key,
                 std::string_view name, std::string& out) {
  out.clear();
  switch (strategy) {
    case config::SubjectNameStrategy::kTopic:
      out.append(topic).append(is_key ? "-key" : "-value");
      return;
    case config::SubjectNameStrategy::kRecord:
      out.append(name);
      return;
    case config::SubjectNameStrategy::kTopicRecord:
      out.append(topic).push_back('-');
      out.append(name);
      return;
  }
}

CachedSchemaIds::CachedSchemaIds(const config::SchemaRegistryConfig& cfg,
                                 std::unique_ptr<RegistryClient> client, const Clock& clock)
    : cfg_(cfg), client_(std::move(client)), clock_(clock) {}

absl::StatusOr<int32_t> CachedSchemaIds::IdFor(std::string_view topic, bool is_key,
                                               std::string_view name,
                                               std::string_view schema_json) {
  SubjectName(cfg_.subject_name_strategy, topic, is_key, name, subject_);
  if (auto by_subject = ids_.find(subject_); by_subject != ids_.end()) {
    // absl's own string_view (Debian's abseil) is what its heterogeneous lookup takes.
    const absl::string_view key(schema_json.data(), schema_json.size());
    if (auto id = by_subject->second.find(key); id != by_subject->second.end()) {
      return id->second;
    }
  }
  const auto now = clock_.SteadyNow();
  if (now < retry_at_) {
    return absl::ResourceExhaustedError(
        fmt::format("schema registry unreachable, retrying in {} ms: {}",
                    std::chrono::duration_cast<std::chrono::milliseconds>(retry_at_ - now).count(),
                    last_failure_));
  }
  absl::StatusOr<int32_t> id = Fetch(schema_json);
  if (absl::IsUnavailable(id.status())) {
    backoff_ = std::clamp(backoff_ * 2, kFirstBackoff, kMaxBackoff);
    retry_at_ = now + backoff_;
    last_failure_ = std::string(MessageOf(id.status()));
    log::Warn("{}; retrying subject {} in {} ms (nothing is dead-lettered or confirmed)",
              last_failure_, subject_, backoff_.count());
    return absl::ResourceExhaustedError(last_failure_);
  }
  if (!id.ok()) return id.status();
  backoff_ = std::chrono::milliseconds(0);
  ids_[subject_].emplace(schema_json, *id);
  log::Info("schema registry: subject {} schema id {}", subject_, *id);
  return *id;
}

absl::StatusOr<int32_t> CachedSchemaIds::Fetch(std::string_view schema_json) {
  if (cfg_.use_latest_version) return client_->LatestId(subject_);
  if (cfg_.auto_register_schemas) return client_->Register(subject_, schema_json);
  absl::StatusOr<int32_t> id = client_->Lookup(subject_, schema_json);
  if (absl::IsNotFound(id.status())) {
    return absl::FailedPreconditionError(fmt::format(
        "{}; auto_register_schemas = false and subject {} does not hold the schema {}: register "
        "it, or set [schema_registry] auto_register_schemas = true",
        MessageOf(id.status()), subject_, schema_json));
  }
  return id;
}

}  // namespace outboxd::registry
