#pragma once
// Writing outbox rows the way an application would, and remembering what Kafka must then hold.

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "harness/pg_client.h"

namespace outboxd::it {

struct OutboxRow {
  std::string aggregatetype;
  std::string aggregateid;
  std::string type;
  std::string payload;  // JSON text; Postgres normalises it (jsonb)
};

// What outboxd must publish for one committed row: topic "<prefix>.<aggregatetype>", key =
// aggregateid, value = payload::text as Postgres returned it, header id = the row's uuid.
struct ExpectedEvent {
  std::string id;
  std::string topic;
  std::string key;
  std::string value;
};

// `CREATE TABLE public.<table>` with the Debezium outbox columns. `table` is unqualified.
absl::Status CreateOutboxTable(PgClient& pg, const std::string& table);

// Inserts `rows` into public.<table> with one INSERT ... RETURNING, inside whatever transaction
// the caller has open. Returns one event per row, in insert order.
absl::StatusOr<std::vector<ExpectedEvent>> InsertOutboxRows(PgClient& pg, const std::string& table,
                                                            const std::string& topic_prefix,
                                                            const std::vector<OutboxRow>& rows);

// A random transactional load over `aggregates` aggregates. Writer w of `writers` owns the
// aggregates i with i % writers == w and numbers each one's events 0, 1, 2, ... in its own
// order, so per aggregate, commit order is the order of that writer's committed list.
struct LoadSpec {
  std::string table;         // unqualified, in schema public
  std::string topic_prefix;  // topic = prefix + "." + aggregatetype
  int writers = 4;
  int aggregates = 100;
  int max_rows_per_tx = 50;      // each transaction has 1..max rows
  int rollback_one_in = 10;      // about one transaction in N is rolled back (0: none)
  int64_t rows_per_writer = -1;  // committed rows per writer; -1: until stopped
  absl::Duration pause_between_tx = absl::ZeroDuration();
  uint64_t seed = 1;
};

// The aggregate type and id of aggregate `i` ("Order", "Order-5").
std::string AggregateType(int i);
std::string AggregateId(int i);

struct WriterResult {
  std::vector<ExpectedEvent> committed;  // in commit order
  std::vector<std::string> rolled_back_ids;
  int64_t transactions = 0;
  int64_t rollbacks = 0;
};

// Runs writer `writer`'s share of `spec` on `pg` until its row budget is spent or `stop` is
// set (checked between transactions). Fills `out` as transactions commit or roll back.
absl::Status RunLoadWriter(const LoadSpec& spec, int writer, PgClient& pg,
                           const std::atomic<bool>& stop, WriterResult& out);

// Every writer's committed events, writer after writer (each writer's in commit order).
std::vector<ExpectedEvent> CommittedEvents(const std::vector<WriterResult>& results);

}  // namespace outboxd::it
