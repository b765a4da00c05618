#include "pg_result.h"

#include <string_view>
#include <vector>

namespace consumer {

Result ExecParams(PGconn* conn, const char* sql, std::initializer_list<const char*> params) {
  const std::vector<const char*> values(params);
  return Result(PQexecParams(conn, sql, static_cast<int>(values.size()), nullptr, values.data(),
                             nullptr, nullptr, 0));
}

bool Succeeded(const Result& result) {
  const ExecStatusType status = PQresultStatus(result.get());
  return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
}

bool IsTransient(PGconn* conn, const PGresult* result) {
  if (PQstatus(conn) != CONNECTION_OK) return true;
  const char* state = result == nullptr ? nullptr : PQresultErrorField(result, PG_DIAG_SQLSTATE);
  if (state == nullptr) return true;  // no server answer: the connection failed
  const std::string_view s(state);
  return s.starts_with("08") || s.starts_with("40") || s.starts_with("53") || s.starts_with("57") ||
         s.starts_with("58") || s == "55P03";
}

std::string ErrorMessage(PGconn* conn, const PGresult* result) {
  std::string message = result != nullptr && PQresultErrorMessage(result)[0] != '\0'
                            ? PQresultErrorMessage(result)
                            : PQerrorMessage(conn);
  while (!message.empty() && message.back() == '\n') message.pop_back();
  return message;
}

}  // namespace consumer
