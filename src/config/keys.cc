#include "config/keys.h"

#include "config/sections.h"

namespace outboxd::config {

std::vector<SectionKeys> AcceptedKeys() {
  return {
      {"postgres", internal::PostgresKeys()}, {"outbox", internal::OutboxKeys()},
      {"relay", internal::RelayKeys()},       {"schema_registry", internal::SchemaRegistryKeys()},
      {"http", internal::HttpKeys()},         {"log", internal::LogKeys()}};
}

}  // namespace outboxd::config
