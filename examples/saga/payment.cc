// The payment service's business writes (participants.h).

#include <string>

#include "messages.h"
#include "participant_row.h"
#include "participants.h"
#include "pg_result.h"

namespace saga {
namespace {

using consumer::ApplyOutcome;
using consumer::ApplyResult;
using consumer::ExecParams;
using consumer::Result;
using consumer::StatementFailure;
using consumer::Succeeded;

// The order's payment status, locked for this transaction; "" when there is none. $1 order id.
constexpr char kLockPayment[] = "SELECT status FROM payments WHERE order_id = $1 FOR UPDATE";

// Charges (writing the ledger) unless the card is declined, and records the answer. $1 order
// id, $2 payload {"amount", "card"}. No row when another transaction recorded one first.
constexpr char kCharge[] =
    "WITH p AS (INSERT INTO payments (order_id, amount, status)"
    "  SELECT $1, ($2::jsonb->>'amount')::bigint,"
    "   CASE WHEN $2::jsonb->>'card' = 'declined' THEN 'refused' ELSE 'charged' END"
    "  ON CONFLICT (order_id) DO NOTHING RETURNING order_id, amount, status),"
    " l AS (INSERT INTO ledger (order_id, kind, amount)"
    "  SELECT order_id, 'charge', amount FROM p WHERE status = 'charged')"
    " SELECT status FROM p";

// Refunds a charge (writing the ledger). $1 order id.
constexpr char kRefund[] =
    "WITH p AS (UPDATE payments SET status = 'voided', updated_at = now()"
    "  WHERE order_id = $1 AND status = 'charged' RETURNING order_id, amount)"
    " INSERT INTO ledger (order_id, kind, amount) SELECT order_id, 'refund', amount FROM p";

// A void before any charge: remembered, so a late ChargePayment is refused.
constexpr char kVoidFirst[] =
    "INSERT INTO payments (order_id, amount, status) VALUES ($1, 0, 'voided')"
    " ON CONFLICT (order_id) DO NOTHING";

ApplyOutcome Charge(PGconn* conn, const outboxd::v1::Event& command) {
  std::string status;
  if (ApplyOutcome answer = AnswerOnce(conn, kLockPayment, kCharge, command, status);
      answer.result != ApplyResult::kApplied) {
    return answer;
  }
  const bool taken = status == "charged";
  return Emit(conn, ReplyTo(command, kPaymentReply, taken ? "PaymentCharged" : "PaymentRefused",
                            "{\"status\": \"" + status + "\"}"));
}

ApplyOutcome Void(PGconn* conn, const outboxd::v1::Event& command) {
  const std::string& order_id = command.correlation_id();
  std::string status;
  if (ApplyOutcome read = LockStatus(conn, kLockPayment, order_id, status);
      read.result != ApplyResult::kApplied) {
    return read;
  }
  const Result done = status.empty() ? ExecParams(conn, kVoidFirst, {order_id.c_str()})
                                     : ExecParams(conn, kRefund, {order_id.c_str()});
  if (!Succeeded(done)) return StatementFailure(conn, done.get());
  return Emit(conn, ReplyTo(command, kPaymentReply, "PaymentVoided", "{\"status\": \"voided\"}"));
}

}  // namespace

ApplyOutcome HandlePaymentCommand(PGconn* conn, const outboxd::v1::Event& command) {
  if (ApplyOutcome checked = CheckContract(command); checked.result != ApplyResult::kApplied) {
    return checked;
  }
  if (command.type() == "ChargePayment") return Charge(conn, command);
  if (command.type() == "VoidPayment") return Void(conn, command);
  return {ApplyResult::kPermanent, "the payment service has no command " + command.type()};
}

}  // namespace saga
