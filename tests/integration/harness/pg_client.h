#pragma once
// A small libpq client for test set-up and checks (normal, non-replication connections).

#include <libpq-fe.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace outboxd::it {

// One result row; nullopt is SQL NULL. Values are Postgres' text output.
using PgRow = std::vector<std::optional<std::string>>;

// Owns one connection. Not thread-safe: one thread per client (see WriterPool).
class PgClient {
 public:
  // Connects with `conninfo`; Unavailable with libpq's message when that fails.
  static absl::StatusOr<PgClient> Connect(const std::string& conninfo);

  PgClient(PgClient&&) noexcept = default;
  PgClient& operator=(PgClient&&) noexcept = default;

  // Runs one or more statements (simple protocol) and discards any rows.
  absl::Status Exec(absl::string_view sql);
  // Runs one statement with text parameters $1..$n and returns all rows.
  absl::StatusOr<std::vector<PgRow>> Query(absl::string_view sql,
                                           const std::vector<std::string>& params = {});
  // First column of the first row; nullopt when there is no row or it is NULL.
  absl::StatusOr<std::optional<std::string>> QueryOptional(
      absl::string_view sql, const std::vector<std::string>& params = {});
  // As QueryOptional, but no row or NULL is NotFound; the value parsed as a 64-bit integer.
  absl::StatusOr<int64_t> QueryInt(absl::string_view sql,
                                   const std::vector<std::string>& params = {});

 private:
  struct Deleter {
    void operator()(PGconn* conn) const { PQfinish(conn); }
  };
  explicit PgClient(PGconn* conn) : conn_(conn) {}

  std::unique_ptr<PGconn, Deleter> conn_;
};

// Quotes `identifier` for SQL ("a""b"); `literal` as a string literal ('it''s').
std::string QuoteIdent(absl::string_view identifier);
std::string QuoteLiteral(absl::string_view literal);

}  // namespace outboxd::it
