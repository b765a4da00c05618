#pragma once
// `outboxd check`'s lines for the schema registry of the avro converters: reachable, the
// credentials accepted, and the compatibility level of the subjects outboxd writes to.

#include "common/check_result.h"
#include "config/config.h"
#include "registry/registry_client.h"

namespace outboxd::registry {

// Nothing when no converter is "avro". Otherwise one line for reaching the registry (FAIL with
// `permission` for refused credentials), one for the global compatibility level, and one per
// existing subject of the configured topic pattern (at most 20) with its level. Makes blocking
// requests through `client`.
CheckResults CheckRegistry(const config::Config& config, RegistryClient& client);

// CheckRegistry with a client made from config.schema_registry.
CheckResults CheckRegistry(const config::Config& config);

}  // namespace outboxd::registry
