// The stock service's business writes (participants.h).

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

// The order's reservation status, locked for this transaction; "" when there is none.
// $1 order id.
constexpr char kLockReservation[] =
    "SELECT status FROM reservations WHERE order_id = $1 FOR UPDATE";

// Takes the quantity if enough is available and records the answer. $1 order id, $2 payload
// {"sku", "quantity"}. No row when another transaction recorded one first (then retried).
constexpr char kReserve[] =
    "WITH taken AS (UPDATE stock SET available = available - ($2::jsonb->>'quantity')::int"
    "  WHERE sku = $2::jsonb->>'sku' AND available >= ($2::jsonb->>'quantity')::int"
    "  RETURNING sku)"
    " INSERT INTO reservations (order_id, sku, quantity, status)"
    " SELECT $1, $2::jsonb->>'sku', ($2::jsonb->>'quantity')::int,"
    "  CASE WHEN EXISTS (SELECT 1 FROM taken) THEN 'reserved' ELSE 'refused' END"
    " ON CONFLICT (order_id) DO NOTHING RETURNING status";

// Gives a held quantity back. $1 order id.
constexpr char kRelease[] =
    "WITH r AS (UPDATE reservations SET status = 'released', updated_at = now()"
    "  WHERE order_id = $1 AND status = 'reserved' RETURNING sku, quantity)"
    " UPDATE stock s SET available = s.available + r.quantity FROM r WHERE s.sku = r.sku";

// A release before any reservation: remembered, so a late ReserveStock is refused.
constexpr char kReleaseFirst[] =
    "INSERT INTO reservations (order_id, sku, quantity, status)"
    " VALUES ($1, $2::jsonb->>'sku', 0, 'released') ON CONFLICT (order_id) DO NOTHING";

ApplyOutcome Reserve(PGconn* conn, const outboxd::v1::Event& command) {
  std::string status;
  if (ApplyOutcome answer = AnswerOnce(conn, kLockReservation, kReserve, command, status);
      answer.result != ApplyResult::kApplied) {
    return answer;
  }
  const bool held = status == "reserved";
  return Emit(conn, ReplyTo(command, kStockReply, held ? "StockReserved" : "StockRefused",
                            "{\"status\": \"" + status + "\"}"));
}

ApplyOutcome Release(PGconn* conn, const outboxd::v1::Event& command) {
  const std::string& order_id = command.correlation_id();
  std::string status;
  if (ApplyOutcome read = LockStatus(conn, kLockReservation, order_id, status);
      read.result != ApplyResult::kApplied) {
    return read;
  }
  const std::string& payload = command.payload();
  const Result done = status.empty()
                          ? ExecParams(conn, kReleaseFirst, {order_id.c_str(), payload.c_str()})
                          : ExecParams(conn, kRelease, {order_id.c_str()});
  if (!Succeeded(done)) return StatementFailure(conn, done.get());
  return Emit(conn, ReplyTo(command, kStockReply, "StockReleased", "{\"status\": \"released\"}"));
}

}  // namespace

ApplyOutcome HandleStockCommand(PGconn* conn, const outboxd::v1::Event& command) {
  if (ApplyOutcome checked = CheckContract(command); checked.result != ApplyResult::kApplied) {
    return checked;
  }
  if (command.type() == "ReserveStock") return Reserve(conn, command);
  if (command.type() == "ReleaseStock") return Release(conn, command);
  return {ApplyResult::kPermanent, "the stock service has no command " + command.type()};
}

}  // namespace saga
