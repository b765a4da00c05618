#include "pg/interruptible_connection.h"

#include <poll.h>

#include "absl/status/status.h"
#include "common/strings.h"

namespace outboxd::pg {
namespace {

using Deadline = std::chrono::steady_clock::time_point;

std::string ErrorText(PGconn* conn) { return std::string(TrimTrailingSpace(PQerrorMessage(conn))); }

// Waits until `socket` is ready for `events`; Cancelled when `wake_fd` is readable first,
// DeadlineExceeded at `deadline`.
absl::Status WaitForSocket(int socket, short events, int wake_fd, Deadline deadline,
                           std::string_view what) {
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return absl::DeadlineExceededError(Concat(what, ": timed out"));
    pollfd fds[2] = {{.fd = wake_fd, .events = POLLIN, .revents = 0},
                     {.fd = socket, .events = events, .revents = 0}};
    const int n = ::poll(fds, 2, static_cast<int>(left.count()) + 1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return absl::InternalError(Concat(what, ": poll failed"));
    if (fds[0].revents != 0) return absl::CancelledError("stopping");
    if (fds[1].revents != 0) return absl::OkStatus();
  }
}

}  // namespace

absl::StatusOr<InterruptibleConnection> InterruptibleConnection::Open(
    const std::string& conninfo, const char* application_name, int wake_fd,
    std::chrono::milliseconds timeout) {
  auto made = MakeConnectParams(conninfo, /*replication=*/false, application_name);
  if (!made.ok()) return made.status();
  const ConnectParams& params = *made;
  InterruptibleConnection conn(
      PQconnectStartParams(params.keywords.data(), params.values.data(), /*expand_dbname=*/1),
      wake_fd);
  PGconn* raw = conn.conn_.get();
  if (raw == nullptr) return absl::ResourceExhaustedError("libpq: out of memory");
  // connect_timeout does not apply to PQconnectPoll: the deadline is ours to keep.
  const Deadline deadline = std::chrono::steady_clock::now() + timeout;
  PostgresPollingStatusType polling = PGRES_POLLING_WRITING;  // How libpq says to begin.
  while (PQstatus(raw) != CONNECTION_BAD && polling != PGRES_POLLING_OK &&
         polling != PGRES_POLLING_FAILED) {
    const short events = polling == PGRES_POLLING_READING ? POLLIN : POLLOUT;
    if (auto s = WaitForSocket(PQsocket(raw), events, wake_fd, deadline, "connecting to Postgres");
        !s.ok()) {
      return s;
    }
    polling = PQconnectPoll(raw);
  }
  // Whatever the cause, the monitor only retries, so no ClassifyConnectError (its ping would
  // block Stop() for up to connect_timeout).
  if (PQstatus(raw) != CONNECTION_OK) return absl::UnavailableError(ConnectErrorText(raw));
  if (PQsetnonblocking(raw, 1) != 0) {
    return absl::UnavailableError(
        Concat("cannot make the connection non-blocking: ", ErrorText(raw)));
  }
  return conn;
}

absl::StatusOr<ResultPtr> InterruptibleConnection::Query(const std::string& sql,
                                                         std::chrono::milliseconds timeout) {
  PGconn* raw = conn_.get();
  const Deadline deadline = std::chrono::steady_clock::now() + timeout;
  if (PQsendQuery(raw, sql.c_str()) != 1) {
    return absl::UnavailableError(Concat("cannot send a query to Postgres: ", ErrorText(raw)));
  }
  int flushed;
  while ((flushed = PQflush(raw)) == 1) {
    if (auto s = WaitForSocket(PQsocket(raw), POLLOUT, wake_fd_, deadline, "sending a query");
        !s.ok()) {
      return s;
    }
  }
  if (flushed < 0)
    return absl::UnavailableError(Concat("cannot send to Postgres: ", ErrorText(raw)));
  while (PQisBusy(raw)) {
    if (auto s = WaitForSocket(PQsocket(raw), POLLIN, wake_fd_, deadline, "waiting for Postgres");
        !s.ok()) {
      return s;
    }
    if (PQconsumeInput(raw) != 1) {
      return absl::UnavailableError(Concat("connection to Postgres lost: ", ErrorText(raw)));
    }
  }
  ResultPtr result(PQgetResult(raw));
  // Drain to the end of the command, so the connection is idle for the next one.
  for (ResultPtr extra(PQgetResult(raw)); extra; extra.reset(PQgetResult(raw))) {
  }
  const ExecStatusType status = PQresultStatus(result.get());
  if (status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK) return result;
  if (PQstatus(raw) == CONNECTION_BAD) {
    return absl::UnavailableError(Concat("connection to Postgres lost: ", ErrorText(raw)));
  }
  const char* sqlstate = PQresultErrorField(result.get(), PG_DIAG_SQLSTATE);
  return ClassifyServerError(sqlstate ? sqlstate : "XX000",
                             TrimTrailingSpace(PQresultErrorMessage(result.get())));
}

std::string InterruptibleConnection::QuoteLiteral(std::string_view text) const {
  std::unique_ptr<char, decltype(&PQfreemem)> quoted(
      PQescapeLiteral(conn_.get(), text.data(), text.size()), &PQfreemem);
  return quoted ? std::string(quoted.get()) : std::string("NULL");
}

}  // namespace outboxd::pg
