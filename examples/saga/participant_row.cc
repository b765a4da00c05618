#include "participant_row.h"

#include "pg_result.h"

namespace saga {

using consumer::ApplyOutcome;
using consumer::ApplyResult;

ApplyOutcome LockStatus(PGconn* conn, const char* lock_sql, const std::string& order_id,
                        std::string& status) {
  const consumer::Result found = consumer::ExecParams(conn, lock_sql, {order_id.c_str()});
  if (!consumer::Succeeded(found)) return consumer::StatementFailure(conn, found.get());
  status = PQntuples(found.get()) == 0 ? "" : PQgetvalue(found.get(), 0, 0);
  return {ApplyResult::kApplied, ""};
}

ApplyOutcome AnswerOnce(PGconn* conn, const char* lock_sql, const char* record_sql,
                        const outboxd::v1::Event& command, std::string& status) {
  const std::string& order_id = command.correlation_id();
  if (ApplyOutcome read = LockStatus(conn, lock_sql, order_id, status);
      read.result != ApplyResult::kApplied || !status.empty()) {
    return read;
  }
  const std::string& payload = command.payload();
  const consumer::Result recorded =
      consumer::ExecParams(conn, record_sql, {order_id.c_str(), payload.c_str()});
  if (!consumer::Succeeded(recorded)) return consumer::StatementFailure(conn, recorded.get());
  // A concurrent delivery recorded the order first: retry, and answer from its row.
  if (PQntuples(recorded.get()) == 0) return {ApplyResult::kRetry, "answer raced"};
  status = PQgetvalue(recorded.get(), 0, 0);
  return {ApplyResult::kApplied, ""};
}

}  // namespace saga
