#pragma once
// RAII over a libpq connection in logical replication mode (replication=database), where
// only the simple query protocol works, and the parameters for an ordinary connection (the
// slot monitor's) that share its defaults and error classification.

#include <libpq-fe.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace outboxd::pg {

struct ConnDeleter {
  void operator()(PGconn* conn) const { PQfinish(conn); }
};
struct ResultDeleter {
  void operator()(PGresult* result) const { PQclear(result); }
};
using ResultPtr = std::unique_ptr<PGresult, ResultDeleter>;

// The version of the libpq this process runs with (PQlibVersion), e.g. "15.18".
std::string LibraryVersion();
// `number` as PQlibVersion and server_version_num spell it, in Postgres's dotted form:
// 150018 -> "15.18", 90624 -> "9.6.24".
std::string VersionText(int number);

// The one place that decides what a libpq failure means (STYLE.md rule 2): Unavailable for
// faults that retrying can cure (network, restarts, slot busy), PermissionDenied for auth and
// privileges, FailedPrecondition for server settings and objects, InvalidArgument otherwise.
// The status carries `sqlstate` (SqlStateOf, common/status.h): match that, not `message`,
// which the server translates per lc_messages.
absl::Status ClassifyServerError(std::string_view sqlstate, std::string_view message);
// For a connection that failed before any SQLSTATE exists (refused, auth, unknown database).
// `server` is libpq's verdict on the server for the same conninfo (PQpingParams): it decides
// whether to retry (Unavailable) or stop, whatever language the server's message is in;
// `message` only refines which error it is (exit code) and is returned as the status text.
absl::Status ClassifyConnectError(PGPing server, std::string_view message);

// libpq keyword/value arrays (null-terminated, for PQconnectdbParams or PQconnectStartParams
// with expand_dbname=1) for `conninfo` with outboxd's defaults: a bounded connect, TCP
// keepalives, and `application_name`. With `replication` the connection is a walsender one
// (replication=database); without, an ordinary SQL session. With a password hook
// (connect_password.h) the attempt's password is made here and overrides the conninfo's. The
// pointers borrow `conninfo` and `application_name`, which must outlive the arrays' use, and
// the params' own `password`. Errors: the hook's (e.g. no AWS credentials), annotated.
struct ConnectParams {
  std::vector<const char*> keywords;
  std::vector<const char*> values;
  std::shared_ptr<const std::string> password;  // Stable storage across moves; null: none.
};
absl::StatusOr<ConnectParams> MakeConnectParams(const std::string& conninfo, bool replication,
                                                const char* application_name);
// "cannot connect to Postgres: <libpq's message>" with the fix appended, for `conn`, whose
// connection attempt failed. `conn` must not be null.
std::string ConnectErrorText(PGconn* conn);

class Connection {
 public:
  // Connects with `conninfo` plus replication=database and application_name=outboxd.
  static absl::StatusOr<Connection> Open(const std::string& conninfo);
  // An ordinary SQL session (no replication=database), application_name=`application_name`,
  // with the same defaults and error classification: for checks and slot administration.
  static absl::StatusOr<Connection> OpenOrdinary(const std::string& conninfo,
                                                 const char* application_name);

  // Runs one statement through the simple query protocol; errors are classified as above with
  // `what` naming the step for the message. The result is TUPLES_OK or COMMAND_OK.
  absl::StatusOr<ResultPtr> Query(const std::string& sql, std::string_view what);

  std::string QuoteLiteral(std::string_view text) const;
  std::string QuoteIdentifier(std::string_view text) const;
  // Server-side name of the connected database.
  std::string DatabaseName() const { return PQdb(conn_.get()); }

  // Borrowed; valid while this Connection lives.
  PGconn* raw() const { return conn_.get(); }

 private:
  explicit Connection(PGconn* conn) : conn_(conn) {}
  std::unique_ptr<PGconn, ConnDeleter> conn_;
};

// The text of row `row`, column `col` (empty for NULL). Requires them to exist.
inline std::string_view Value(const PGresult* result, int row, int col) {
  return {PQgetvalue(result, row, col), static_cast<size_t>(PQgetlength(result, row, col))};
}

}  // namespace outboxd::pg
