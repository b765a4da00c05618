#pragma once
// The order service: the saga's orchestrator (README.md has the sequence). Its state is the
// `orders` row (orders.sql); every change of state is made in the transaction that writes the
// next command, or the final event, to its outbox.
//
//   RESERVING --StockReserved--> CHARGING --PaymentCharged--> CONFIRMED
//   RESERVING --StockRefused---> CANCELLED
//   CHARGING --PaymentRefused--> RELEASING --StockReleased--> CANCELLED
//   deadline, attempts left: the step's command again (same causation)
//   deadline, none left: RESERVING -> RELEASING, CHARGING -> VOIDING --PaymentVoided-->
//   RELEASING; compensations (VOIDING, RELEASING) are retried until they are answered.
// A reply that does not fit the order's state (it came after its step ended) is counted in
// orders.late_replies and otherwise ignored.

#include <libpq-fe.h>

#include "inbox.h"
#include "outboxd/v1/event.pb.h"

namespace saga {

struct SagaSettings {
  int step_timeout_ms = 5000;  // a step without reply this long is sent again or compensated
  int max_attempts = 3;        // sends of a forward step's command before compensating
};

// The business write for a reply (StockReply, PaymentReply): advances the order's saga.
consumer::ApplyOutcome OnReply(PGconn* conn, const outboxd::v1::Event& reply,
                               const SagaSettings& settings);

// In one transaction of its own on `conn`: every saga whose deadline passed gets its command
// again or its compensation. Sets `advanced` to how many. Safe to run in several processes
// (FOR UPDATE SKIP LOCKED).
consumer::ApplyOutcome ExpireDeadlines(PGconn* conn, const SagaSettings& settings, int& advanced);

// In one transaction of its own on `conn`: the order number `index` (its data made up from the
// number: 1 in 10 with a declined card, 1 in 10 for the scarce item 'rare'), OrderCreated and
// ReserveStock. Placing the same number again does nothing.
consumer::ApplyOutcome PlaceOrder(PGconn* conn, int index, const SagaSettings& settings);

}  // namespace saga
