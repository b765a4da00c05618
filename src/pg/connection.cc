#include "pg/connection.h"

#include "absl/status/status.h"
#include "common/status.h"
#include "common/strings.h"
#include "fmt/format.h"
#include "pg/connect_password.h"

namespace outboxd::pg {
namespace {

std::string TrimMessage(const char* message) {
  return std::string(TrimTrailingSpace(message ? message : ""));
}

// libpq's own wording for the TLS failures it detects on the client side (no SQLSTATE
// exists for them): a server certificate outside the trusted CA, or one issued for another
// name under sslmode=verify-full.
constexpr std::string_view kCertNotTrusted = "certificate verify failed";
constexpr std::string_view kCertNameMismatch = "does not match host name";
// The server answered the TLS request with "no": ssl = off there.
constexpr std::string_view kServerWithoutTls = "server does not support SSL";
// A "reject" line of pg_hba.conf matched a plaintext connection ("hostnossl ... reject"): the
// server wants TLS from this client. (A missing line says "no pg_hba.conf entry" instead.)
bool TlsRequired(std::string_view message) {
  return Contains(message, "pg_hba.conf rejects connection") && Contains(message, "no encryption");
}

// The fix for a failed TLS set-up, or "" when `message` is not one.
std::string_view TlsFix(std::string_view message) {
  if (Contains(message, kCertNotTrusted)) {
    return "; the server's certificate is not signed by a CA outboxd trusts: set sslrootcert in "
           "[postgres] conninfo to the file of the CA that issued it";
  }
  if (Contains(message, kCertNameMismatch)) {
    return "; connect with a host name the server's certificate was issued for (host= in "
           "[postgres] conninfo), or reissue the certificate with this name in its "
           "subjectAltName";
  }
  if (Contains(message, kServerWithoutTls)) {
    return "; turn TLS on in the server (ssl = on with ssl_cert_file and ssl_key_file) or "
           "lower sslmode in [postgres] conninfo";
  }
  if (TlsRequired(message)) {
    return "; the server accepts this user only over TLS: add sslmode=verify-full "
           "sslrootcert=<CA file> to [postgres] conninfo";
  }
  return "";
}

// Appends what the operator should do about the common connection failures. `user` is
// PQuser's answer, null when libpq could not even parse the conninfo.
std::string WithFix(std::string message, const char* user_or_null) {
  const std::string_view user = user_or_null != nullptr ? user_or_null : "<user>";
  if (std::string_view tls = TlsFix(message); !tls.empty()) {
    message += tls;
  } else if (Contains(message, "replication role")) {
    message += Concat("; grant it as a superuser: ALTER ROLE ", user, " REPLICATION");
  } else if (Contains(message, "password authentication failed") ||
             Contains(message, "password is required")) {
    message +=
        "; check the password in [postgres] conninfo or OUTBOXD_POSTGRES_CONNINFO "
        "(or ~/.pgpass)";
  } else if (Contains(message, "no pg_hba.conf entry")) {
    message +=
        "; allow this host, user and database with replication in pg_hba.conf: a "
        "\"host <db> <user> <addr> scram-sha-256\" line covers replication=database";
  }
  return message;
}

// The code and text of a server error (ErrorResponse) with `sqlstate`; see ClassifyServerError.
absl::Status ServerErrorStatus(std::string_view sqlstate, std::string_view message) {
  std::string text = Concat(message, " (SQLSTATE ", sqlstate, ")");
  if (sqlstate == "55006") {
    text +=
        "; another process (a second outboxd?) is streaming this slot: standing by until it "
        "is released";
  }
  const std::string_view sql_class = sqlstate.substr(0, 2);
  if (sql_class == "08" || sql_class == "53" || sql_class == "57" || sql_class == "58" ||
      sqlstate == "55006" /* object_in_use: the slot is held by another process */ ||
      sqlstate == "40001" || sqlstate == "40P01") {
    return absl::UnavailableError(text);
  }
  if (sql_class == "28" || sqlstate == "42501") return absl::PermissionDeniedError(text);
  if (sql_class == "55" || sql_class == "42" || sql_class == "3D" || sql_class == "3F") {
    return absl::FailedPreconditionError(text);
  }
  return absl::InvalidArgumentError(text);
}

}  // namespace

std::string LibraryVersion() { return VersionText(PQlibVersion()); }

std::string VersionText(int number) {
  // Two parts since PostgreSQL 10 (major * 10000 + minor), three before (9.6.24 is 90624).
  if (number >= 100000) return Concat(number / 10000, ".", number % 10000);
  return Concat(number / 10000, ".", number / 100 % 100, ".", number % 100);
}

absl::Status ClassifyServerError(std::string_view sqlstate, std::string_view message) {
  absl::Status status = ServerErrorStatus(sqlstate, message);
  SetSqlState(status, sqlstate);
  return status;
}

absl::Status ClassifyConnectError(PGPing server, std::string_view message) {
  std::string text(message);
  switch (server) {
    case PQPING_NO_ATTEMPT:  // libpq refused the conninfo before contacting anyone.
      return absl::InvalidArgumentError(text);
    case PQPING_REJECT:  // Starting up, shutting down or in crash recovery: it will pass.
      return absl::UnavailableError(text);
    case PQPING_NO_RESPONSE:
      // Unreachable, unless libpq itself gave up on TLS: its own (client-side, untranslated)
      // words say so, and a setting on one side or the other must change.
      if (Contains(message, kServerWithoutTls)) return absl::FailedPreconditionError(text);
      if (Contains(message, kCertNotTrusted) || Contains(message, kCertNameMismatch)) {
        return absl::PermissionDeniedError(text);
      }
      if (Contains(message, "does not exist")) return absl::InvalidArgumentError(text);  // CA file.
      return absl::UnavailableError(text);
    case PQPING_OK:
      break;
  }
  // The server is up and refused this client (authentication, pg_hba.conf, a NOLOGIN role, a
  // database that does not exist): retrying cannot help. libpq exposes no SQLSTATE before a
  // session exists, and the server may translate its messages, so the text below only picks
  // the exit code; the one retriable refusal, running out of connection slots (53300), is
  // recognised by its English wording.
  if (Contains(message, "too many") || Contains(message, "remaining connection slots") ||
      Contains(message, "exceeds max_wal_senders")) {
    return absl::UnavailableError(text);
  }
  if (Contains(message, "does not exist") && !Contains(message, "role")) {
    return absl::InvalidArgumentError(text);  // The conninfo names a missing database.
  }
  return absl::PermissionDeniedError(text);
}

absl::StatusOr<ConnectParams> MakeConnectParams(const std::string& conninfo, bool replication,
                                                const char* application_name) {
  // expand_dbname=1: "dbname" is parsed as a whole conninfo string. Keywords before it are
  // defaults the user's string may override (a bounded connect, TCP keepalives so a vanished
  // server is noticed in about a minute rather than hours); keywords after it are fixed.
  ConnectParams params{.keywords = {"connect_timeout", "keepalives_idle", "keepalives_interval",
                                    "keepalives_count", "dbname"},
                       .values = {"10", "30", "10", "3", conninfo.c_str()},
                       .password = nullptr};
  if (replication) {
    params.keywords.push_back("replication");
    params.values.push_back("database");
  }
  params.keywords.push_back("application_name");
  params.values.push_back(application_name);
  auto password = PasswordForAttempt(conninfo);  // Each attempt its own: tokens expire.
  if (!password.ok()) return password.status();
  if (password->has_value()) {
    params.password = std::make_shared<const std::string>(std::move(**password));
    params.keywords.push_back("password");
    params.values.push_back(params.password->c_str());
  }
  params.keywords.push_back(nullptr);
  params.values.push_back(nullptr);
  return params;
}

std::string ConnectErrorText(PGconn* conn) {
  return WithFix(Concat("cannot connect to Postgres: ", TrimMessage(PQerrorMessage(conn))),
                 PQuser(conn));
}

absl::StatusOr<Connection> Connection::Open(const std::string& conninfo) {
  auto made = MakeConnectParams(conninfo, /*replication=*/true, "outboxd");
  if (!made.ok()) return made.status();
  const ConnectParams& params = *made;
  Connection conn(
      PQconnectdbParams(params.keywords.data(), params.values.data(), /*expand_dbname=*/1));
  if (conn.raw() == nullptr) return absl::ResourceExhaustedError("libpq: out of memory");
  if (PQstatus(conn.raw()) != CONNECTION_OK) {
    // libpq's verdict on the server (reachable? refusing us?) decides whether to retry.
    const PGPing server =
        PQpingParams(params.keywords.data(), params.values.data(), /*expand_dbname=*/1);
    return ClassifyConnectError(server, ConnectErrorText(conn.raw()));
  }
  return conn;
}

absl::StatusOr<ResultPtr> Connection::Query(const std::string& sql, std::string_view what) {
  ResultPtr result(PQexec(conn_.get(), sql.c_str()));
  const ExecStatusType status = PQresultStatus(result.get());
  if (status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK) return result;
  if (PQstatus(conn_.get()) == CONNECTION_BAD) {
    return absl::UnavailableError(
        Concat(what, ": connection to Postgres lost: ", TrimMessage(PQerrorMessage(conn_.get()))));
  }
  const char* sqlstate = PQresultErrorField(result.get(), PG_DIAG_SQLSTATE);
  return ClassifyServerError(sqlstate ? sqlstate : "XX000",
                             Concat(what, ": ", TrimMessage(PQerrorMessage(conn_.get()))));
}

std::string Connection::QuoteLiteral(std::string_view text) const {
  std::unique_ptr<char, decltype(&PQfreemem)> quoted(
      PQescapeLiteral(conn_.get(), text.data(), text.size()), &PQfreemem);
  return quoted ? std::string(quoted.get()) : std::string("NULL");
}

std::string Connection::QuoteIdentifier(std::string_view text) const {
  std::unique_ptr<char, decltype(&PQfreemem)> quoted(
      PQescapeIdentifier(conn_.get(), text.data(), text.size()), &PQfreemem);
  return quoted ? std::string(quoted.get()) : std::string("\"\"");
}

absl::StatusOr<Connection> Connection::OpenOrdinary(const std::string& conninfo,
                                                    const char* application_name) {
  auto made = MakeConnectParams(conninfo, /*replication=*/false, application_name);
  if (!made.ok()) return made.status();
  const char* const* keywords = made->keywords.data();
  const char* const* values = made->values.data();
  Connection conn(PQconnectdbParams(keywords, values, /*expand_dbname=*/1));
  if (conn.raw() == nullptr) return absl::ResourceExhaustedError("libpq: out of memory");
  if (PQstatus(conn.raw()) != CONNECTION_OK) {
    const PGPing server = PQpingParams(keywords, values, /*expand_dbname=*/1);
    return ClassifyConnectError(server, WithFix(Concat("cannot connect to Postgres: ",
                                                       TrimMessage(PQerrorMessage(conn.raw()))),
                                                PQuser(conn.raw())));
  }
  return conn;
}

}  // namespace outboxd::pg
