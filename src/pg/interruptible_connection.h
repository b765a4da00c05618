#pragma once
// An ordinary (non-replication) libpq connection for a background thread: connecting and every
// query wait in poll() together with a wake fd, so another thread can interrupt them at once
// (the slot monitor's Stop) instead of waiting out a connect or statement timeout.

#include <libpq-fe.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "pg/connection.h"

namespace outboxd::pg {

class InterruptibleConnection {
 public:
  // Connects with `conninfo` (outboxd's defaults, no replication=database) as
  // `application_name`, giving up after `timeout`. Returns Cancelled when `wake_fd` becomes
  // readable first, DeadlineExceeded on timeout, otherwise Unavailable with libpq's message and
  // the fix (not classified further: the caller retries whatever the cause).
  // `wake_fd` must stay open while the connection lives.
  static absl::StatusOr<InterruptibleConnection> Open(const std::string& conninfo,
                                                      const char* application_name, int wake_fd,
                                                      std::chrono::milliseconds timeout);

  // Runs one statement; the result is TUPLES_OK or COMMAND_OK. Cancelled when woken,
  // DeadlineExceeded after `timeout` (the connection is then unusable: drop it), Unavailable
  // when the connection breaks, else ClassifyServerError.
  absl::StatusOr<ResultPtr> Query(const std::string& sql, std::chrono::milliseconds timeout);

  std::string QuoteLiteral(std::string_view text) const;
  int server_version() const { return PQserverVersion(conn_.get()); }

 private:
  InterruptibleConnection(PGconn* conn, int wake_fd) : conn_(conn), wake_fd_(wake_fd) {}
  std::unique_ptr<PGconn, ConnDeleter> conn_;
  int wake_fd_;
};

}  // namespace outboxd::pg
