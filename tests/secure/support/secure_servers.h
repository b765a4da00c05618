#pragma once
// Servers of their own for the secure-connection tests, started through the project's scripts
// in their opt-in secure modes: a TLS-only Postgres (OUTBOXD_PG_TLS=1 scripts/pg) and a Kafka
// broker with a SASL_SSL + SCRAM-SHA-512 listener (OUTBOXD_KAFKA_SECURE=1 scripts/kafka). Each
// starts once per test binary, on first use, and stops when the binary ends.

#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace outboxd::secure {

// One server run by `scripts_dir`/<script> in a fresh temporary directory, and the variables
// its env file exports. The destructor runs `<script> stop` and deletes the directory.
class ScriptedServer {
 public:
  // Runs `env_prefix <script> start DIR` through the shell and reads DIR/`env_file`.
  static absl::StatusOr<std::unique_ptr<ScriptedServer>> Start(const std::string& scripts_dir,
                                                               const std::string& script,
                                                               const std::string& env_prefix,
                                                               const std::string& env_file);
  ~ScriptedServer();
  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;

  // The value the env file exports for `name`; "" when it exports none.
  std::string Get(const std::string& name) const;
  const std::string& dir() const { return dir_; }

 private:
  ScriptedServer(std::string script_path, std::string dir)
      : script_path_(std::move(script_path)), dir_(std::move(dir)) {}

  std::string script_path_;
  std::string dir_;
  std::map<std::string, std::string> env_;
};

// The TLS-only cluster (pg.env: OUTBOXD_TEST_PG_CONNINFO with sslmode=verify-full,
// OUTBOXD_TEST_PG_ADMIN_CONNINFO, OUTBOXD_TEST_PG_CA_FILE, OUTBOXD_TEST_PG_PORT). The pointer
// lives until the test binary exits; a failed start is remembered and returned again.
absl::StatusOr<ScriptedServer*> TlsPostgres(const std::string& scripts_dir);

// The SASL_SSL broker (kafka.env: OUTBOXD_TEST_KAFKA_SASL_SSL_BOOTSTRAP, _CA_FILE, _SASL_USER,
// _SASL_PASSWORD), on the default Kafka (4.1.1), which rejects the SCRAM login of librdkafka
// before 2.6.1 (librdkafka#4895). Same lifetime rules as TlsPostgres.
absl::StatusOr<ScriptedServer*> ScramKafka(const std::string& scripts_dir);

// A throwaway CA unrelated to the servers' one (scripts/test-ca into `dir`): its ca.crt path.
absl::StatusOr<std::string> MakeOtherCa(const std::string& scripts_dir, const std::string& dir);

}  // namespace outboxd::secure
