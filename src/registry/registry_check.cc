#include "registry/registry_check.h"

#include "common/status.h"
#include "config/topic.h"
#include "fmt/format.h"

namespace outboxd::registry {
namespace {

constexpr size_t kMaxSubjectsShown = 20;

CheckResult Unreachable(const config::Config& config, const absl::Status& status) {
  const bool permission = absl::IsUnauthenticated(status) || absl::IsPermissionDenied(status);
  return Fail(fmt::format("schema registry {}", config.schema_registry.url),
              std::string(MessageOf(status)),
              permission ? "fix [schema_registry] username and password (basic auth)"
                         : "check [schema_registry] url (and ca_file for https), and that the "
                           "registry runs",
              permission);
}

// Subjects outboxd writes: under TopicNameStrategy, "<topic>-key"/"-value" of the pattern.
bool IsOurs(const config::Config& config, std::string_view subject) {
  const config::TopicTemplate topic = config::SplitTopicPattern(config.outbox.topic);
  if (!subject.starts_with(topic.prefix)) return false;
  return subject.ends_with("-value") || subject.ends_with("-key");
}

}  // namespace

CheckResults CheckRegistry(const config::Config& config, RegistryClient& client) {
  CheckResults results;
  if (!config::UsesAvro(config.outbox)) return results;
  absl::StatusOr<std::vector<std::string>> subjects = client.Subjects();
  if (!subjects.ok()) {
    results.push_back(Unreachable(config, subjects.status()));
    return results;
  }
  results.push_back(
      Pass(fmt::format("schema registry {}", config.schema_registry.url),
           fmt::format("reachable{}, {} subjects",
                       config.schema_registry.username.empty() ? "" : ", credentials accepted",
                       subjects->size())));
  absl::StatusOr<std::string> global = client.Compatibility("");
  if (global.ok()) {
    results.push_back(Pass("schema registry compatibility", fmt::format("global {}", *global)));
  } else {
    results.push_back(Warn("schema registry compatibility", std::string(MessageOf(global.status())),
                           "check that the user may read /config"));
  }
  size_t shown = 0;
  for (const std::string& subject : *subjects) {
    if (config.schema_registry.subject_name_strategy == config::SubjectNameStrategy::kTopic &&
        !IsOurs(config, subject)) {
      continue;
    }
    if (shown++ == kMaxSubjectsShown) break;
    absl::StatusOr<std::string> level = client.Compatibility(subject);
    if (level.ok()) {
      results.push_back(Pass(fmt::format("schema registry subject {}", subject), *level));
    }
  }
  return results;
}

CheckResults CheckRegistry(const config::Config& config) {
  if (!config::UsesAvro(config.outbox)) return {};
  auto client = RegistryClient::Create(config.schema_registry);
  if (!client.ok()) return {Unreachable(config, client.status())};
  return CheckRegistry(config, **client);
}

}  // namespace outboxd::registry
