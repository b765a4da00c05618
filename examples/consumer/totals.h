#pragma once
// The example consumer's business write (schema.sql): a projection of every aggregate's events.

#include "inbox.h"

namespace consumer {

// Adds 1 to the event's aggregate's event_count and its payload's "amount" (a JSON number; 0
// when absent or the payload is NULL) to amount_total. A BusinessWrite for Inbox::Apply.
ApplyOutcome ApplyTotals(PGconn* conn, const outboxd::v1::Event& event);

}  // namespace consumer
