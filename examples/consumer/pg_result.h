#pragma once
// RAII for libpq results and the one rule that says whether a failed statement is worth
// retrying; shared by the inbox and the business writes that run inside its transactions.

#include <libpq-fe.h>

#include <initializer_list>
#include <memory>
#include <string>

namespace consumer {

struct ResultDeleter {
  void operator()(PGresult* result) const { PQclear(result); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

// Runs `sql` with text parameters $1..$n (nullptr is NULL) on `conn`. The pointers need only
// live for the call.
Result ExecParams(PGconn* conn, const char* sql, std::initializer_list<const char*> params);

// True when `result` is a success (PGRES_COMMAND_OK or PGRES_TUPLES_OK).
bool Succeeded(const Result& result);

// True when another attempt can succeed: the connection is gone, or SQLSTATE classes 08
// (connection), 40 (serialization failure, deadlock), 53 (out of resources), 57 (operator
// intervention: shutdown, cancel), 58 (I/O error), or 55P03 (lock not available).
bool IsTransient(PGconn* conn, const PGresult* result);

// The server's (or libpq's) message for a failed statement, without the trailing newline.
std::string ErrorMessage(PGconn* conn, const PGresult* result);

}  // namespace consumer
