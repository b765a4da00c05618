#pragma once
// The saga's message contract on top of outboxd's envelope: every message is an outbox row
// (outbox.sql) whose aggregate id and correlation id are the order id, whose causation id is
// the message that caused it, with a type and a version (the "version" header).

#include <libpq-fe.h>

#include <string>

#include "inbox.h"
#include "outboxd/v1/event.pb.h"

namespace saga {

// Topics are <prefix>.<aggregatetype>: what each service reads.
inline constexpr char kStockCommand[] = "StockCommand";      // stock reads
inline constexpr char kPaymentCommand[] = "PaymentCommand";  // payment reads
inline constexpr char kStockReply[] = "StockReply";          // the orchestrator reads
inline constexpr char kPaymentReply[] = "PaymentReply";      // the orchestrator reads
inline constexpr char kOrderEvent[] = "Order";               // OrderCreated/Confirmed/Cancelled

// The only message version this code writes and reads.
inline constexpr char kVersion[] = "1";

struct Outgoing {
  const char* aggregate_type;  // one of the topic suffixes above
  const char* type;            // e.g. "StockReserved"
  std::string order_id;        // aggregate id and correlation id
  std::string causation_id;    // empty: none (the order's first event)
  std::string payload;         // JSON
};

// Inserts `message` into the connection's outbox inside the caller's transaction; on success
// stores the new message id in `id` (when not null).
consumer::ApplyOutcome Emit(PGconn* conn, const Outgoing& message, std::string* id = nullptr);

// The reply to `command` (same correlation id, caused by it) of `type`, with `payload`.
Outgoing ReplyTo(const outboxd::v1::Event& command, const char* aggregate_type, const char* type,
                 std::string payload);

// kPermanent naming the problem unless `event` is version kVersion with a correlation id.
consumer::ApplyOutcome CheckContract(const outboxd::v1::Event& event);

}  // namespace saga
