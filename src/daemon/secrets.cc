#include "daemon/secrets.h"

namespace outboxd::daemon {

Redactor SecretsOf(const config::Config& config) {
  Redactor redactor;
  redactor.AddAll(ConninfoSecrets(config.postgres.conninfo));
  for (const auto& [name, value] : config.kafka) {
    if (IsSecretKey(name)) redactor.Add(value);
  }
  // Values outboxd prints as they are: a secret inside one of them is not a secret any more.
  redactor.ForgetSecretsIn(RedactConninfo(config.postgres.conninfo));
  for (const auto& [name, value] : config.kafka) {
    if (!IsSecretKey(name)) redactor.ForgetSecretsIn(value);
  }
  for (const auto& table : config.postgres.tables) redactor.ForgetSecretsIn(table.ToString());
  redactor.ForgetSecretsIn(config.postgres.slot);
  redactor.ForgetSecretsIn(config.postgres.publication);
  return redactor;
}

}  // namespace outboxd::daemon
