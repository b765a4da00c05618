#include "orchestrator.h"

#include <charconv>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "messages.h"
#include "pg_result.h"

namespace saga {
namespace {

using consumer::ApplyOutcome;
using consumer::ApplyResult;
using consumer::ExecParams;
using consumer::Result;
using consumer::StatementFailure;
using consumer::Succeeded;

ApplyOutcome Ok() { return {ApplyResult::kApplied, ""}; }

// What entering a state sends: a command to a participant, or (final states) an order event.
struct Step {
  std::string_view state;
  const char* aggregate_type;
  const char* type;
  bool final;
};
constexpr Step kSteps[] = {
    {"RESERVING", kStockCommand, "ReserveStock", false},
    {"CHARGING", kPaymentCommand, "ChargePayment", false},
    {"VOIDING", kPaymentCommand, "VoidPayment", false},
    {"RELEASING", kStockCommand, "ReleaseStock", false},
    {"CONFIRMED", kOrderEvent, "OrderConfirmed", true},
    {"CANCELLED", kOrderEvent, "OrderCancelled", true},
};

// The replies each state waits for; any other reply is late.
struct Transition {
  std::string_view state;
  std::string_view reply;
  const char* next;
  const char* outcome;  // nullptr: unchanged
};
constexpr Transition kTransitions[] = {
    {"RESERVING", "StockReserved", "CHARGING", nullptr},
    {"RESERVING", "StockRefused", "CANCELLED", "out_of_stock"},
    {"CHARGING", "PaymentCharged", "CONFIRMED", "confirmed"},
    {"CHARGING", "PaymentRefused", "RELEASING", "payment_refused"},
    {"VOIDING", "PaymentVoided", "RELEASING", nullptr},
    {"RELEASING", "StockReleased", "CANCELLED", nullptr},
};

// One saga as the transitions need it; the payloads are built by Postgres (valid JSON).
struct Saga {
  std::string order_id, state, stock_payload, payment_payload, step_cause, step_command;
  int attempts = 0;
};

constexpr char kSagaColumns[] =
    "SELECT order_id, state, jsonb_build_object('sku', sku, 'quantity', quantity)::text,"
    " jsonb_build_object('amount', amount, 'card', card)::text,"
    " COALESCE(step_cause::text, ''), COALESCE(step_command::text, ''), attempts FROM orders";

Saga ReadSaga(const PGresult* rows, int row) {
  Saga saga{PQgetvalue(rows, row, 0), PQgetvalue(rows, row, 1), PQgetvalue(rows, row, 2),
            PQgetvalue(rows, row, 3), PQgetvalue(rows, row, 4), PQgetvalue(rows, row, 5)};
  const std::string_view attempts = PQgetvalue(rows, row, 6);  // an integer column: digits
  std::from_chars(attempts.data(), attempts.data() + attempts.size(), saga.attempts);
  return saga;
}

// Moves `saga` to `next`: writes the state's command (or final event) caused by `cause` and
// updates the row, in the caller's transaction. `retry`: the same step sent again.
ApplyOutcome Advance(PGconn* conn, const Saga& saga, std::string_view next,
                     const std::string& cause, const char* outcome, bool retry,
                     const SagaSettings& settings) {
  const Step* step = nullptr;
  for (const Step& s : kSteps) {
    if (s.state == next) step = &s;
  }
  if (step == nullptr) return {ApplyResult::kPermanent, "no saga state " + std::string(next)};
  const std::string_view target(step->aggregate_type);
  std::string payload = target == kStockCommand     ? saga.stock_payload
                        : target == kPaymentCommand ? saga.payment_payload
                                                    : "{}";
  std::string id;
  if (ApplyOutcome sent = Emit(
          conn, {step->aggregate_type, step->type, saga.order_id, cause, std::move(payload)}, &id);
      sent.result != ApplyResult::kApplied) {
    return sent;
  }
  const std::string state(next);
  const std::string timeout = std::to_string(settings.step_timeout_ms);
  const Result updated = ExecParams(
      conn,
      "UPDATE orders SET state = $2, step_cause = NULLIF($3, '')::uuid, step_command = $4::uuid,"
      " attempts = CASE WHEN $5 THEN attempts + 1 ELSE 1 END,"
      " retries = retries + CASE WHEN $5 THEN 1 ELSE 0 END,"
      " deadline = CASE WHEN $6 THEN NULL"
      "  ELSE now() + make_interval(secs => $7::float8 / 1000) END,"
      " outcome = COALESCE($8, outcome), finished_at = CASE WHEN $6 THEN now() END"
      " WHERE order_id = $1",
      {saga.order_id.c_str(), state.c_str(), cause.c_str(), id.c_str(), retry ? "t" : "f",
       step->final ? "t" : "f", timeout.c_str(), outcome});
  if (!Succeeded(updated)) return StatementFailure(conn, updated.get());
  return Ok();
}

// BEGIN, `body`, COMMIT; ROLLBACK when any of it fails.
ApplyOutcome InTransaction(PGconn* conn, const std::function<ApplyOutcome()>& body) {
  const Result begin(PQexec(conn, "BEGIN"));
  if (!Succeeded(begin)) return StatementFailure(conn, begin.get());
  ApplyOutcome outcome = body();
  if (outcome.result == ApplyResult::kApplied) {
    const Result commit(PQexec(conn, "COMMIT"));
    if (!Succeeded(commit)) return StatementFailure(conn, commit.get());
    return outcome;
  }
  const Result rollback(PQexec(conn, "ROLLBACK"));  // Best effort: the connection may be gone.
  return outcome;
}

// The deadline of `saga` passed: the command again while attempts are left (compensations
// always), else the compensation of the forward step.
ApplyOutcome Expire(PGconn* conn, const Saga& saga, const SagaSettings& settings) {
  const bool compensating = saga.state == "VOIDING" || saga.state == "RELEASING";
  if (compensating || saga.attempts < settings.max_attempts) {
    return Advance(conn, saga, saga.state, saga.step_cause, nullptr, /*retry=*/true, settings);
  }
  if (saga.state == "RESERVING") {
    return Advance(conn, saga, "RELEASING", saga.step_command, "stock_timeout", false, settings);
  }
  return Advance(conn, saga, "VOIDING", saga.step_command, "payment_timeout", false, settings);
}

}  // namespace

ApplyOutcome OnReply(PGconn* conn, const outboxd::v1::Event& reply, const SagaSettings& settings) {
  if (ApplyOutcome checked = CheckContract(reply); checked.result != ApplyResult::kApplied) {
    return checked;
  }
  const std::string sql = std::string(kSagaColumns) + " WHERE order_id = $1 FOR UPDATE";
  const Result found = ExecParams(conn, sql.c_str(), {reply.correlation_id().c_str()});
  if (!Succeeded(found)) return StatementFailure(conn, found.get());
  if (PQntuples(found.get()) == 0) {
    return {ApplyResult::kPermanent,
            "reply " + reply.id() + " for an unknown order " + reply.correlation_id()};
  }
  const Saga saga = ReadSaga(found.get(), 0);
  for (const Transition& t : kTransitions) {
    if (t.state == saga.state && t.reply == reply.type()) {
      return Advance(conn, saga, t.next, reply.id(), t.outcome, /*retry=*/false, settings);
    }
  }
  // After its step: e.g. the answer to an earlier attempt, or one after the compensation began.
  const Result counted =
      ExecParams(conn, "UPDATE orders SET late_replies = late_replies + 1 WHERE order_id = $1",
                 {saga.order_id.c_str()});
  if (!Succeeded(counted)) return StatementFailure(conn, counted.get());
  return Ok();
}

ApplyOutcome ExpireDeadlines(PGconn* conn, const SagaSettings& settings, int& advanced) {
  advanced = 0;
  return InTransaction(conn, [&]() -> ApplyOutcome {
    const std::string sql = std::string(kSagaColumns) +
                            " WHERE deadline <= now() ORDER BY deadline LIMIT 100"
                            " FOR UPDATE SKIP LOCKED";
    const Result due(PQexec(conn, sql.c_str()));
    if (!Succeeded(due)) return StatementFailure(conn, due.get());
    for (int row = 0; row < PQntuples(due.get()); ++row) {
      if (ApplyOutcome moved = Expire(conn, ReadSaga(due.get(), row), settings);
          moved.result != ApplyResult::kApplied) {
        return moved;
      }
      ++advanced;
    }
    return Ok();
  });
}

ApplyOutcome PlaceOrder(PGconn* conn, int index, const SagaSettings& settings) {
  const std::string order_id = "order-" + std::to_string(index);
  const bool rare = index % 10 == 7;
  const std::string sku = rare ? "rare" : "sku-" + std::to_string(index % 3);
  const std::string quantity = std::to_string(1 + index % 2);
  const std::string amount = std::to_string(1000 + (index * 37) % 9000);
  const char* card = index % 10 == 3 ? "declined" : "ok";
  return InTransaction(conn, [&]() -> ApplyOutcome {
    const Result inserted =
        ExecParams(conn,
                   "INSERT INTO orders (order_id, sku, quantity, amount, card, state)"
                   " VALUES ($1, $2, $3, $4, $5, 'RESERVING') ON CONFLICT (order_id) DO NOTHING",
                   {order_id.c_str(), sku.c_str(), quantity.c_str(), amount.c_str(), card});
    if (!Succeeded(inserted)) return StatementFailure(conn, inserted.get());
    if (std::string_view(PQcmdTuples(inserted.get())) != "1") return Ok();  // placed before
    const std::string sql = std::string(kSagaColumns) + " WHERE order_id = $1";
    const Result found = ExecParams(conn, sql.c_str(), {order_id.c_str()});
    if (!Succeeded(found)) return StatementFailure(conn, found.get());
    const Saga saga = ReadSaga(found.get(), 0);
    std::string created;
    if (ApplyOutcome sent =
            Emit(conn, {kOrderEvent, "OrderCreated", order_id, "", saga.stock_payload}, &created);
        sent.result != ApplyResult::kApplied) {
      return sent;
    }
    return Advance(conn, saga, "RESERVING", created, nullptr, /*retry=*/false, settings);
  });
}

}  // namespace saga
