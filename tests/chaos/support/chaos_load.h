#pragma once
// The load generator of the chaos tests: writer threads that keep committing outbox rows
// through Postgres restarts.
//
// Writer w of `writers` owns the aggregates i with i % writers == w and numbers each one's
// events 0, 1, 2, ... (field "seq" of the payload) in its own commit order, so per aggregate
// commit order is the writer's order. Transactions hold 1..max_rows_per_tx rows; about one in
// rollback_one_in is rolled back. When the connection breaks, a transaction whose COMMIT got
// no answer is resolved after reconnecting (are its rows in the table?), so the verifier
// knows exactly what committed even across `pg_ctl stop -m immediate`.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "harness/outbox_writer.h"

namespace outboxd::chaos {

struct ChaosLoadSpec {
  std::string conninfo;      // role outboxd, database app
  std::string table;         // unqualified, schema public
  std::string topic_prefix;  // topic = prefix + "." + aggregatetype
  int writers = 4;
  int aggregates = 60;
  int max_rows_per_tx = 50;
  int rollback_one_in = 10;      // 0: never
  int64_t rows_per_writer = -1;  // committed rows per writer; -1: until stopped
  absl::Duration pause_between_tx = absl::Milliseconds(20);
  uint64_t seed = 1;
};

struct ChaosLoadStats {
  int64_t transactions = 0;      // attempted (BEGIN sent)
  int64_t commits = 0;           // committed, whether acknowledged or resolved afterwards
  int64_t rollbacks = 0;         // deliberate ROLLBACKs
  int64_t lost_connections = 0;  // connection failures the writers recovered from
  int64_t commits_resolved = 0;  // COMMIT without an answer, found committed afterwards
  int64_t aborts_resolved = 0;   // COMMIT without an answer, found not committed
};

class ChaosLoad {
 public:
  // Starts the writer threads at once.
  explicit ChaosLoad(ChaosLoadSpec spec);
  // Stops and joins if Stop was not called.
  ~ChaosLoad();
  ChaosLoad(const ChaosLoad&) = delete;
  ChaosLoad& operator=(const ChaosLoad&) = delete;

  // Asks the writers to finish their current transaction and joins them. The first error a
  // writer could not recover from, else OK. Idempotent.
  absl::Status Stop();
  // Joins without asking (for a bounded rows_per_writer load).
  absl::Status Wait();

  // Committed rows so far (live).
  int64_t committed_rows() const { return committed_rows_; }

  // After Stop/Wait: every committed event, per aggregate in commit order.
  std::vector<it::ExpectedEvent> Committed() const;
  // After Stop/Wait: ids of rows whose transaction did not commit.
  absl::flat_hash_set<std::string> NotCommitted() const;
  ChaosLoadStats Stats() const;
  // The aggregate types the load writes (each is one topic).
  static std::vector<std::string> AggregateTypes(const ChaosLoadSpec& spec);

 private:
  struct Writer {
    std::vector<it::ExpectedEvent> committed;
    std::vector<std::string> not_committed;
    ChaosLoadStats stats;
    absl::Status status;
  };
  void Run(int index, Writer& writer);

  const ChaosLoadSpec spec_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> committed_rows_{0};
  std::vector<std::unique_ptr<Writer>> writers_;
  std::vector<std::thread> threads_;
  bool joined_ = false;
};

}  // namespace outboxd::chaos
