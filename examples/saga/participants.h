#pragma once
// The two participants of the saga. Each is a consumer::BusinessWrite: it runs inside the
// inbox's transaction for a new command, changes its service's rows and writes the reply to its
// service's outbox in that same transaction. Commands are idempotent per order (a retry has a
// new message id, so the inbox lets it through): the service's row for the order answers it.

#include <libpq-fe.h>

#include "inbox.h"
#include "outboxd/v1/event.pb.h"

namespace saga {

// ReserveStock -> StockReserved or StockRefused (shortage, or the order was released first);
// ReleaseStock -> StockReleased (gives a reservation back; remembers a release that came first).
// Tables of stock.sql.
consumer::ApplyOutcome HandleStockCommand(PGconn* conn, const outboxd::v1::Event& command);

// ChargePayment -> PaymentCharged or PaymentRefused (card declined, or voided first);
// VoidPayment -> PaymentVoided (refunds a charge; remembers a void that came first).
// Tables of payment.sql.
consumer::ApplyOutcome HandlePaymentCommand(PGconn* conn, const outboxd::v1::Event& command);

}  // namespace saga
