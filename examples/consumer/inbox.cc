#include "inbox.h"

#include <string>

#include "pg_result.h"

namespace consumer {
namespace {

// The dedup: a replayed event id inserts no row (PQcmdTuples says "0").
constexpr char kInsertInbox[] =
    "INSERT INTO inbox (event_id, aggregate_type, aggregate_id, event_type,"
    " kafka_topic, kafka_partition, kafka_offset)"
    " VALUES ($1, $2, $3, $4, $5, $6, $7)"
    " ON CONFLICT (event_id) DO NOTHING";

// A duplicate is only counted: how often replays happen is worth seeing in an audit.
constexpr char kCountDuplicate[] =
    "UPDATE inbox SET deliveries = deliveries + 1 WHERE event_id = $1";

Result Exec(PGconn* conn, const char* sql) { return Result(PQexec(conn, sql)); }

// "a, b and c" for the error message.
std::string Enumerate(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " and " : ", ";
    out += names[i];
  }
  return out;
}

}  // namespace

ApplyOutcome StatementFailure(PGconn* conn, const PGresult* result) {
  return {IsTransient(conn, result) ? ApplyResult::kRetry : ApplyResult::kPermanent,
          ErrorMessage(conn, result)};
}

std::unique_ptr<Inbox> Inbox::Connect(const InboxSettings& settings, std::string& error) {
  // fallback_application_name names the consumer in pg_stat_activity unless conninfo does.
  const char* keys[] = {"dbname", "fallback_application_name", nullptr};
  const char* values[] = {settings.conninfo.c_str(), settings.application_name.c_str(), nullptr};
  PGconn* conn = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  std::unique_ptr<Inbox> inbox(new Inbox(conn));
  if (PQstatus(conn) != CONNECTION_OK) {
    error = std::string("cannot connect to Postgres (--postgres): ") + PQerrorMessage(conn);
    return nullptr;
  }
  std::vector<std::string> tables{"inbox"};
  tables.insert(tables.end(), settings.business_tables.begin(), settings.business_tables.end());
  std::string sql = "SELECT true";
  for (const std::string& table : tables) {
    sql += " AND to_regclass('" + table + "') IS NOT NULL";
  }
  const Result found = Exec(conn, sql.c_str());
  if (PQresultStatus(found.get()) != PGRES_TUPLES_OK) {
    error = std::string("cannot look up the inbox tables: ") + PQerrorMessage(conn);
    return nullptr;
  }
  if (std::string_view(PQgetvalue(found.get(), 0, 0)) != "t") {
    error = "tables " + Enumerate(tables) +
            " are not on the connection's search_path; create them with: " + settings.setup_hint;
    return nullptr;
  }
  return inbox;
}

Inbox::~Inbox() { PQfinish(conn_); }

ApplyOutcome Inbox::Apply(const outboxd::v1::Event& event, const RecordPosition& from,
                          const BusinessWrite& write) {
  if (PQstatus(conn_) != CONNECTION_OK) {
    PQreset(conn_);
    if (PQstatus(conn_) != CONNECTION_OK) return StatementFailure(conn_, nullptr);
  }
  const Result begin = Exec(conn_, "BEGIN");
  if (PQresultStatus(begin.get()) != PGRES_COMMAND_OK) return StatementFailure(conn_, begin.get());
  ApplyOutcome outcome = ApplyInTransaction(event, from, write);
  if (outcome.result == ApplyResult::kRetry || outcome.result == ApplyResult::kPermanent) {
    Exec(conn_, "ROLLBACK");  // Best effort: a lost connection has rolled back already.
  }
  return outcome;
}

ApplyOutcome Inbox::ApplyInTransaction(const outboxd::v1::Event& event, const RecordPosition& from,
                                       const BusinessWrite& write) {
  const std::string topic(from.topic);
  const std::string partition = std::to_string(from.partition);
  const std::string offset = std::to_string(from.offset);
  const Result inserted =
      ExecParams(conn_, kInsertInbox,
                 {event.id().c_str(), event.aggregate_type().c_str(), event.aggregate_id().c_str(),
                  event.type().c_str(), topic.c_str(), partition.c_str(), offset.c_str()});
  if (PQresultStatus(inserted.get()) != PGRES_COMMAND_OK) {
    return StatementFailure(conn_, inserted.get());
  }
  const bool is_new = std::string_view(PQcmdTuples(inserted.get())) == "1";
  if (is_new) {
    ApplyOutcome written = write(conn_, event);
    if (written.result != ApplyResult::kApplied) return written;
  } else {
    const Result counted = ExecParams(conn_, kCountDuplicate, {event.id().c_str()});
    if (!Succeeded(counted)) return StatementFailure(conn_, counted.get());
  }
  const Result commit = Exec(conn_, "COMMIT");
  if (PQresultStatus(commit.get()) != PGRES_COMMAND_OK) {
    return StatementFailure(conn_, commit.get());
  }
  return {is_new ? ApplyResult::kApplied : ApplyResult::kDuplicate, ""};
}

}  // namespace consumer
