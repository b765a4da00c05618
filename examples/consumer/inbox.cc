#include "inbox.h"

#include <string>

namespace consumer {
namespace {

// The dedup: a replayed event id inserts no row (PQcmdTuples says "0").
constexpr char kInsertInbox[] =
    "INSERT INTO inbox (event_id, aggregate_type, aggregate_id, event_type,"
    " kafka_topic, kafka_partition, kafka_offset)"
    " VALUES ($1, $2, $3, $4, $5, $6, $7)"
    " ON CONFLICT (event_id) DO NOTHING";

// The business write, run only for a new event: the payload is JSON text (outboxd's payload
// bytes for a json/jsonb column); Postgres parses it, so the example needs no JSON library.
constexpr char kApplyTotals[] =
    "INSERT INTO aggregate_totals (aggregate_type, aggregate_id, event_count, amount_total)"
    " VALUES ($1, $2, 1, COALESCE(($3::jsonb ->> 'amount')::bigint, 0))"
    " ON CONFLICT (aggregate_type, aggregate_id) DO UPDATE SET"
    " event_count = aggregate_totals.event_count + 1,"
    " amount_total = aggregate_totals.amount_total + EXCLUDED.amount_total";

struct ResultDeleter {
  void operator()(PGresult* result) const { PQclear(result); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

// Transient when another attempt can succeed: the connection is gone, or SQLSTATE classes 08
// (connection), 40 (serialization failure, deadlock), 53 (out of resources), 57 (operator
// intervention: shutdown, cancel), 58 (I/O error), or 55P03 (lock not available).
bool IsTransient(PGconn* conn, const PGresult* result) {
  if (PQstatus(conn) != CONNECTION_OK) return true;
  const char* state = result == nullptr ? nullptr : PQresultErrorField(result, PG_DIAG_SQLSTATE);
  if (state == nullptr) return true;  // no server answer: the connection failed
  const std::string_view s(state);
  return s.starts_with("08") || s.starts_with("40") || s.starts_with("53") || s.starts_with("57") ||
         s.starts_with("58") || s == "55P03";
}

// The outcome of a failed statement, with the server's (or libpq's) message.
ApplyOutcome Failure(PGconn* conn, const PGresult* result) {
  std::string message = result != nullptr && PQresultErrorMessage(result)[0] != '\0'
                            ? PQresultErrorMessage(result)
                            : PQerrorMessage(conn);
  while (!message.empty() && message.back() == '\n') message.pop_back();
  return {IsTransient(conn, result) ? ApplyResult::kRetry : ApplyResult::kPermanent, message};
}

Result Exec(PGconn* conn, const char* sql) { return Result(PQexec(conn, sql)); }

}  // namespace

std::unique_ptr<Inbox> Inbox::Connect(const std::string& conninfo, std::string& error) {
  // fallback_application_name names the consumer in pg_stat_activity unless conninfo does.
  const char* keys[] = {"dbname", "fallback_application_name", nullptr};
  const char* values[] = {conninfo.c_str(), "outboxd-example-consumer", nullptr};
  PGconn* conn = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  std::unique_ptr<Inbox> inbox(new Inbox(conn));
  if (PQstatus(conn) != CONNECTION_OK) {
    error = std::string("cannot connect to Postgres (--postgres): ") + PQerrorMessage(conn);
    return nullptr;
  }
  const Result found = Exec(conn,
                            "SELECT to_regclass('inbox') IS NOT NULL AND"
                            " to_regclass('aggregate_totals') IS NOT NULL");
  if (PQresultStatus(found.get()) != PGRES_TUPLES_OK) {
    error = std::string("cannot look up the inbox tables: ") + PQerrorMessage(conn);
    return nullptr;
  }
  if (std::string_view(PQgetvalue(found.get(), 0, 0)) != "t") {
    error =
        "tables inbox and aggregate_totals are not on the connection's search_path; create them "
        "with: psql CONNINFO -f examples/consumer/schema.sql";
    return nullptr;
  }
  return inbox;
}

Inbox::~Inbox() { PQfinish(conn_); }

ApplyOutcome Inbox::Apply(const outboxd::v1::Event& event, const RecordPosition& from) {
  if (PQstatus(conn_) != CONNECTION_OK) {
    PQreset(conn_);
    if (PQstatus(conn_) != CONNECTION_OK) return Failure(conn_, nullptr);
  }
  const Result begin = Exec(conn_, "BEGIN");
  if (PQresultStatus(begin.get()) != PGRES_COMMAND_OK) return Failure(conn_, begin.get());
  ApplyOutcome outcome = ApplyInTransaction(event, from);
  if (outcome.result == ApplyResult::kRetry || outcome.result == ApplyResult::kPermanent) {
    Exec(conn_, "ROLLBACK");  // Best effort: a lost connection has rolled back already.
  }
  return outcome;
}

ApplyOutcome Inbox::ApplyInTransaction(const outboxd::v1::Event& event,
                                       const RecordPosition& from) {
  const std::string topic(from.topic);
  const std::string partition = std::to_string(from.partition);
  const std::string offset = std::to_string(from.offset);
  const char* inbox_params[] = {event.id().c_str(),
                                event.aggregate_type().c_str(),
                                event.aggregate_id().c_str(),
                                event.type().c_str(),
                                topic.c_str(),
                                partition.c_str(),
                                offset.c_str()};
  const Result inserted(
      PQexecParams(conn_, kInsertInbox, 7, nullptr, inbox_params, nullptr, nullptr, 0));
  if (PQresultStatus(inserted.get()) != PGRES_COMMAND_OK) return Failure(conn_, inserted.get());
  const bool is_new = std::string_view(PQcmdTuples(inserted.get())) == "1";

  if (is_new) {
    // A NULL payload (neither oneof member set) adds nothing but still counts the event.
    const std::string payload = event.payload();
    const char* totals_params[] = {event.aggregate_type().c_str(), event.aggregate_id().c_str(),
                                   event.has_payload() ? payload.c_str() : nullptr};
    const Result applied(
        PQexecParams(conn_, kApplyTotals, 3, nullptr, totals_params, nullptr, nullptr, 0));
    if (PQresultStatus(applied.get()) != PGRES_COMMAND_OK) return Failure(conn_, applied.get());
  }
  const Result commit = Exec(conn_, "COMMIT");
  if (PQresultStatus(commit.get()) != PGRES_COMMAND_OK) return Failure(conn_, commit.get());
  return {is_new ? ApplyResult::kApplied : ApplyResult::kDuplicate, ""};
}

}  // namespace consumer
