#include "pg/connect_password.h"

#include <libpq-fe.h>
#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>

#include "common/status.h"
#include "common/strings.h"

namespace outboxd::pg {
namespace {

PasswordHook& Hook() {
  static PasswordHook hook;
  return hook;
}

struct OptionsDeleter {
  void operator()(PQconninfoOption* options) const { PQconninfoFree(options); }
};

// keyword -> value of `conninfo`, unset ones empty; the libpq parse error otherwise.
absl::StatusOr<std::unique_ptr<PQconninfoOption, OptionsDeleter>> Parse(
    const std::string& conninfo) {
  char* error = nullptr;
  std::unique_ptr<PQconninfoOption, OptionsDeleter> options(
      PQconninfoParse(conninfo.c_str(), &error));
  if (!options) {
    std::string text(error ? TrimTrailingSpace(error) : "out of memory");
    PQfreemem(error);
    return absl::InvalidArgumentError(Concat("[postgres] conninfo cannot be parsed: ", text));
  }
  return options;
}

std::string ValueOf(const PQconninfoOption* options, std::string_view keyword, const char* env) {
  for (const PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
    if (keyword == o->keyword && o->val != nullptr && *o->val != '\0') return o->val;
  }
  const char* fallback = env ? std::getenv(env) : nullptr;
  return fallback ? fallback : "";
}

std::string OsUser() {
  const passwd* entry = getpwuid(geteuid());
  return entry ? entry->pw_name : "";
}

}  // namespace

void SetPasswordHook(PasswordHook hook) { Hook() = std::move(hook); }

absl::StatusOr<ConnectTarget> ResolveTarget(const std::string& conninfo) {
  auto options = Parse(conninfo);
  if (!options.ok()) return options.status();
  ConnectTarget target;
  target.host = ValueOf(options->get(), "host", "PGHOST");
  const std::string port = ValueOf(options->get(), "port", "PGPORT");
  target.user = ValueOf(options->get(), "user", "PGUSER");
  if (target.user.empty()) target.user = OsUser();
  if (target.host.empty() || target.host.front() == '/') {
    return absl::InvalidArgumentError(
        "[postgres] iam_auth = \"aws_rds\": conninfo has no host name (a Unix socket cannot "
        "take an IAM token); set host=<instance or cluster endpoint>");
  }
  if (Contains(target.host, ",") || Contains(port, ",")) {
    return absl::InvalidArgumentError(
        "[postgres] iam_auth = \"aws_rds\": conninfo lists several hosts, but a token is made "
        "for one endpoint; use the cluster (writer) endpoint, which follows failovers");
  }
  if (!port.empty()) {
    const auto number = ParseInt<uint16_t>(port);
    if (!number || *number == 0) {
      return absl::InvalidArgumentError(
          Concat("[postgres] conninfo port \"", port, "\" is not a port number"));
    }
    target.port = *number;
  }
  return target;
}

absl::Status RequireVerifyFull(const std::string& conninfo) {
  auto options = Parse(conninfo);
  if (!options.ok()) return options.status();
  const std::string mode = ValueOf(options->get(), "sslmode", "PGSSLMODE");
  if (mode == "verify-full") return absl::OkStatus();
  return absl::InvalidArgumentError(
      Concat("[postgres] iam_auth = \"aws_rds\" needs sslmode=verify-full, but conninfo has ",
             mode.empty() ? std::string("no sslmode (libpq's default is prefer)")
                          : Concat("sslmode=", mode),
             ": an IAM token is a password for 15 minutes and must reach only the real server; add "
             "sslmode=verify-full sslrootcert=<the RDS CA bundle, global-bundle.pem> to conninfo"));
}

absl::StatusOr<std::optional<std::string>> PasswordForAttempt(const std::string& conninfo) {
  const PasswordHook& hook = Hook();
  if (!hook) return std::optional<std::string>();
  auto target = ResolveTarget(conninfo);
  if (!target.ok()) return target.status();
  auto password = hook(*target);
  if (!password.ok()) {
    return Annotate(password.status(), Concat("cannot make the IAM password for ", target->user,
                                              "@", target->host, ":", target->port));
  }
  return std::optional<std::string>(*std::move(password));
}

}  // namespace outboxd::pg
