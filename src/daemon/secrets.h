#pragma once
// The secret values of a loaded config, for the Redactor that scrubs logs and `check` output.

#include "common/redact.h"
#include "config/config.h"

namespace outboxd::daemon {

// Passwords in [postgres] conninfo (keyword and URI forms) and every [kafka] property whose
// name IsSecretKey (sasl.password, ssl.key.password, ...), less those that also occur in a
// value printed as it is (user name, slot name, ...; see Redactor::ForgetSecretsIn).
Redactor SecretsOf(const config::Config& config);

}  // namespace outboxd::daemon
