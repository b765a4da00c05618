#pragma once
// Passwords made per connection attempt (RDS/Aurora IAM tokens, DESIGN.md section 8): a
// process-wide hook that every connection path (replication, ordinary, interruptible) asks
// for the password of each attempt, reconnects included. pg knows nothing of AWS; the daemon
// installs a hook backed by src/cloud.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace outboxd::pg {

// Where a conninfo connects: what an IAM token is made for.
struct ConnectTarget {
  std::string host;
  uint16_t port = 5432;
  std::string user;
};

// Makes the password of one attempt at `target`. Called on the connecting thread (the relay's,
// the slot monitor's, `check`'s), so it must be thread-safe; may block (credentials over HTTP).
using PasswordHook = std::function<absl::StatusOr<std::string>(const ConnectTarget& target)>;

// Installs `hook` for every later connection attempt; an empty hook removes it. Call at
// start-up before any thread connects: readers do not lock.
void SetPasswordHook(PasswordHook hook);

// Host, port and user of `conninfo` as libpq resolves them (PGHOST, PGPORT, PGUSER, then the
// OS user). InvalidArgument naming the fix for several hosts (one token cannot serve them), a
// Unix socket, or a string libpq cannot parse.
absl::StatusOr<ConnectTarget> ResolveTarget(const std::string& conninfo);

// OkStatus when `conninfo` (or PGSSLMODE) says sslmode=verify-full; otherwise InvalidArgument
// naming the mode found and the fix: a token is a bearer credential for 15 minutes and must
// only go to the real server over TLS.
absl::Status RequireVerifyFull(const std::string& conninfo);

// The password for one attempt with `conninfo`: nullopt without a hook, else the hook's answer
// for ResolveTarget(conninfo), with errors annotated for the operator.
absl::StatusOr<std::optional<std::string>> PasswordForAttempt(const std::string& conninfo);

}  // namespace outboxd::pg
