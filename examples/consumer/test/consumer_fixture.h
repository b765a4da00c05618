#pragma once
// The consumer test's fixture: the outboxd fixture (table, slot, publication, topics) plus
// a schema holding the shipped inbox.sql and schema.sql, a consumer group, and consumer
// processes.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "child_process.h"
#include "harness/fixture.h"
#include "harness/pg_client.h"

namespace consumer_test {

// One event as the test wrote it, and what it must add to the projection.
struct TestEvent {
  std::string id;
  std::string aggregate_type;
  std::string aggregate_id;
  int64_t amount = 0;
};

// (aggregate type, aggregate id) -> (event_count, amount_total).
using Totals = std::map<std::pair<std::string, std::string>, std::pair<int64_t, int64_t>>;

// The projection one pass over `events` yields.
Totals ExpectedTotals(const std::vector<TestEvent>& events);

// The consumer's "stopped: A applied, D duplicates skipped" log line: {A, D}; {-1, -1} if none.
std::pair<int64_t, int64_t> StopSummary(const std::string& log);

// `n` events "<tag>-<i>" over `aggregates` aggregates, with amounts 1..13.
std::vector<TestEvent> MakeEvents(int n, int aggregates, const std::string& tag);

// (key, value) records of `events` as envelope-protobuf, built with the generated class.
std::vector<std::pair<std::string, std::string>> EnvelopeRecords(
    const std::vector<TestEvent>& events);

class ConsumerTest : public outboxd::it::OutboxdTest {
 protected:
  // Creates the schema (inbox.sql, schema.sql, found through search_path) and names the group.
  void SetUp() override;
  // Kills the consumers, drops the schema, then the base fixture cleans up.
  void TearDown() override;

  // The consumer's command line for this test's topic, group and database.
  std::vector<std::string> ConsumerArgs() const;
  // Starts a consumer; owned by the fixture until TearDown (the pointer stays valid).
  absl::StatusOr<ChildProcess*> StartConsumer(const std::vector<std::string>& args);
  absl::StatusOr<ChildProcess*> StartConsumer() { return StartConsumer(ConsumerArgs()); }

  // Rows in the inbox; -1 if the query fails.
  int64_t InboxCount();
  Totals ActualTotals();
  // The inbox holds exactly the ids of `events`, each once, and the projection is one pass.
  void ExpectAppliedOnce(const std::vector<TestEvent>& events);
  // Waits until the group committed every partition's end offset (the consumer caught up).
  absl::Status WaitCaughtUp(absl::Duration timeout);

  std::string schema_, conninfo_, group_, topic_;  // topic_: Topic("Ledger")
  std::unique_ptr<outboxd::it::PgClient> db_;      // connected like the consumer
  std::vector<std::unique_ptr<ChildProcess>> consumers_;
};

}  // namespace consumer_test
