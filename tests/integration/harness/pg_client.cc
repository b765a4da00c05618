#include "harness/pg_client.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"

namespace outboxd::it {
namespace {

struct ResultDeleter {
  void operator()(PGresult* result) const { PQclear(result); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

std::string Trimmed(const char* message) {
  return std::string(absl::StripTrailingAsciiWhitespace(message == nullptr ? "" : message));
}

absl::Status ResultError(PGconn* conn, const PGresult* result, absl::string_view sql) {
  const char* message = result != nullptr ? PQresultErrorMessage(result) : PQerrorMessage(conn);
  return absl::InternalError(absl::StrCat(Trimmed(message), " [SQL: ", sql.substr(0, 300), "]"));
}

}  // namespace

absl::StatusOr<PgClient> PgClient::Connect(const std::string& conninfo) {
  PgClient client(PQconnectdb(conninfo.c_str()));
  if (client.conn_ == nullptr) return absl::ResourceExhaustedError("PQconnectdb: out of memory");
  if (PQstatus(client.conn_.get()) != CONNECTION_OK) {
    return absl::UnavailableError(absl::StrCat("connecting to Postgres (", conninfo,
                                               "): ", Trimmed(PQerrorMessage(client.conn_.get()))));
  }
  return client;
}

absl::Status PgClient::Exec(absl::string_view sql) {
  const std::string text(sql);
  Result result(PQexec(conn_.get(), text.c_str()));
  const ExecStatusType status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    return ResultError(conn_.get(), result.get(), sql);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<PgRow>> PgClient::Query(absl::string_view sql,
                                                   const std::vector<std::string>& params) {
  const std::string text(sql);
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const std::string& p : params) values.push_back(p.c_str());
  Result result(PQexecParams(conn_.get(), text.c_str(), static_cast<int>(values.size()), nullptr,
                             values.data(), nullptr, nullptr, 0));
  const ExecStatusType status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    return ResultError(conn_.get(), result.get(), sql);
  }
  std::vector<PgRow> rows(static_cast<size_t>(PQntuples(result.get())));
  const int columns = PQnfields(result.get());
  for (size_t r = 0; r < rows.size(); ++r) {
    rows[r].reserve(static_cast<size_t>(columns));
    for (int c = 0; c < columns; ++c) {
      const int row = static_cast<int>(r);
      if (PQgetisnull(result.get(), row, c)) {
        rows[r].emplace_back(std::nullopt);
      } else {
        rows[r].emplace_back(std::string(PQgetvalue(result.get(), row, c),
                                         static_cast<size_t>(PQgetlength(result.get(), row, c))));
      }
    }
  }
  return rows;
}

absl::StatusOr<std::optional<std::string>> PgClient::QueryOptional(
    absl::string_view sql, const std::vector<std::string>& params) {
  absl::StatusOr<std::vector<PgRow>> rows = Query(sql, params);
  if (!rows.ok()) return rows.status();
  if (rows->empty() || rows->front().empty()) return std::optional<std::string>();
  return rows->front().front();
}

absl::StatusOr<int64_t> PgClient::QueryInt(absl::string_view sql,
                                           const std::vector<std::string>& params) {
  absl::StatusOr<std::optional<std::string>> value = QueryOptional(sql, params);
  if (!value.ok()) return value.status();
  if (!value->has_value()) {
    return absl::NotFoundError(absl::StrCat("no value from [", sql, "]"));
  }
  int64_t n = 0;
  if (!absl::SimpleAtoi(**value, &n)) {
    return absl::InternalError(absl::StrCat("not an integer: '", **value, "' from [", sql, "]"));
  }
  return n;
}

std::string QuoteIdent(absl::string_view identifier) {
  return absl::StrCat("\"", absl::StrReplaceAll(identifier, {{"\"", "\"\""}}), "\"");
}

std::string QuoteLiteral(absl::string_view literal) {
  return absl::StrCat("'", absl::StrReplaceAll(literal, {{"'", "''"}}), "'");
}

}  // namespace outboxd::it
