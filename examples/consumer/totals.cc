#include "totals.h"

#include <string>

#include "pg_result.h"

namespace consumer {
namespace {

// The payload is JSON text (outboxd's payload bytes for a json/jsonb column); Postgres parses
// it, so the example needs no JSON library.
constexpr char kApplyTotals[] =
    "INSERT INTO aggregate_totals (aggregate_type, aggregate_id, event_count, amount_total)"
    " VALUES ($1, $2, 1, COALESCE(($3::jsonb ->> 'amount')::bigint, 0))"
    " ON CONFLICT (aggregate_type, aggregate_id) DO UPDATE SET"
    " event_count = aggregate_totals.event_count + 1,"
    " amount_total = aggregate_totals.amount_total + EXCLUDED.amount_total";

}  // namespace

ApplyOutcome ApplyTotals(PGconn* conn, const outboxd::v1::Event& event) {
  // A NULL payload (neither oneof member set) adds nothing but still counts the event.
  const std::string& payload = event.payload();
  const Result applied = ExecParams(conn, kApplyTotals,
                                    {event.aggregate_type().c_str(), event.aggregate_id().c_str(),
                                     event.has_payload() ? payload.c_str() : nullptr});
  if (PQresultStatus(applied.get()) != PGRES_COMMAND_OK) {
    return StatementFailure(conn, applied.get());
  }
  return {ApplyResult::kApplied, ""};
}

}  // namespace consumer
