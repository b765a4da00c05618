#include "pg/replication_stream.h"

#include "absl/status/status.h"
#include "common/status.h"
#include "common/strings.h"
#include "fmt/format.h"
#include "pg/slot_setup.h"

namespace outboxd::pg {
namespace {

std::string ErrorText(PGconn* conn) { return std::string(TrimTrailingSpace(PQerrorMessage(conn))); }

}  // namespace

absl::StatusOr<ReplicationStream> ReplicationStream::Start(Connection conn,
                                                           const StreamOptions& options) {
  // publication_names is a string literal holding a comma-separated identifier list.
  const std::string sql = Concat("START_REPLICATION SLOT ", conn.QuoteIdentifier(options.slot),
                                 " LOGICAL 0/0 (proto_version '1', publication_names ",
                                 conn.QuoteLiteral(conn.QuoteIdentifier(options.publication)),
                                 options.messages ? ", messages 'true')" : ")");
  ResultPtr result(PQexec(conn.raw(), sql.c_str()));
  if (PQresultStatus(result.get()) != PGRES_COPY_BOTH) {
    const char* sqlstate = PQresultErrorField(result.get(), PG_DIAG_SQLSTATE);
    const std::string message = Concat("START_REPLICATION: ", ErrorText(conn.raw()));
    if (sqlstate == nullptr) return absl::UnavailableError(message);
    absl::Status failure = ClassifyServerError(sqlstate, message);
    // object_not_in_prerequisite_state is how Postgres refuses a slot it invalidated after the
    // set-up checks ("can no longer get changes from replication slot"); the slot's row, not
    // the English text, decides whether that is a lost slot (exit 6) rather than a restart.
    if (std::string_view(sqlstate) == "55000") {
      return LostSlotOr(conn, options.slot, std::move(failure));
    }
    return failure;
  }
  if (PQsetnonblocking(conn.raw(), 1) != 0) {
    return absl::UnavailableError(
        Concat("cannot make the replication connection non-blocking: ", ErrorText(conn.raw())));
  }
  return ReplicationStream(std::move(conn));
}

absl::StatusOr<std::optional<CopyBuffer>> ReplicationStream::Read() {
  for (int attempt = 0; attempt < 2; ++attempt) {
    char* data = nullptr;
    const int size = PQgetCopyData(conn_.raw(), &data, /*async=*/1);
    if (size > 0) return std::optional<CopyBuffer>(CopyBuffer(data, size));
    if (size == -1) return StreamEnded();
    if (size == -2) {
      return absl::UnavailableError(
          Concat("replication connection failed: ", ErrorText(conn_.raw())));
    }
    // Nothing buffered: pull in what the socket holds, then look once more.
    if (attempt == 0 && PQconsumeInput(conn_.raw()) == 0) {
      return absl::UnavailableError(
          Concat("replication connection lost: ", ErrorText(conn_.raw())));
    }
  }
  return std::optional<CopyBuffer>();
}

absl::Status ReplicationStream::StreamEnded() {
  // The server left CopyBoth: the result says why (walsender terminated, shutdown, error).
  ResultPtr result(PQgetResult(conn_.raw()));
  const char* sqlstate = result ? PQresultErrorField(result.get(), PG_DIAG_SQLSTATE) : nullptr;
  const std::string message = Concat("Postgres ended the replication stream: ",
                                     result ? ErrorText(conn_.raw()) : "no reason given");
  if (sqlstate == nullptr) return absl::UnavailableError(message);
  return ClassifyServerError(sqlstate, message);
}

absl::Status ReplicationStream::SendStatus(std::string_view status_message) {
  if (PQputCopyData(conn_.raw(), status_message.data(), static_cast<int>(status_message.size())) !=
      1) {
    return absl::UnavailableError(Concat("cannot send standby status: ", ErrorText(conn_.raw())));
  }
  return Flush();
}

absl::Status ReplicationStream::Flush() {
  const int rc = PQflush(conn_.raw());
  if (rc < 0) {
    return absl::UnavailableError(Concat("cannot send to Postgres: ", ErrorText(conn_.raw())));
  }
  pending_output_ = rc == 1;
  return absl::OkStatus();
}

}  // namespace outboxd::pg
