#pragma once
// A participant's row for an order (a reservation, a payment): what makes its commands
// idempotent per order. The row is locked for the inbox's transaction, and the first answer
// recorded there is the answer to every retry of the command.

#include <libpq-fe.h>

#include <string>

#include "inbox.h"
#include "outboxd/v1/event.pb.h"

namespace saga {

// Locks and reads the status of the order's row into `status` ("" when there is none).
// `lock_sql`: SELECT status ... WHERE order_id = $1 FOR UPDATE.
consumer::ApplyOutcome LockStatus(PGconn* conn, const char* lock_sql, const std::string& order_id,
                                  std::string& status);

// LockStatus, then, when the order has no row yet, `record_sql` ($1 order id, $2 the command's
// payload; RETURNING status, no row when a concurrent delivery recorded one first, which is
// retried) records the first answer. `status` is the order's answer either way.
consumer::ApplyOutcome AnswerOnce(PGconn* conn, const char* lock_sql, const char* record_sql,
                                  const outboxd::v1::Event& command, std::string& status);

}  // namespace saga
