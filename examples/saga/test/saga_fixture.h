#pragma once
// The saga tests' fixture: the outboxd fixture (slot, publication, topic prefix) plus the three
// services' schemas (from the shipped SQL files), one outboxd relaying their three outbox
// tables as envelope-protobuf, the services and the order tool as child processes, and the
// audit of what the tables hold at the end.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "child_process.h"
#include "harness/fixture.h"
#include "harness/outboxd_process.h"

namespace saga_test {

// What the tables hold after a run (every figure read from them; `violations` lists each
// broken invariant with a count).
struct Accounting {
  int64_t orders = 0, confirmed = 0, cancelled = 0, unfinished = 0;
  std::map<std::string, int64_t> outcomes;  // orders.outcome -> orders
  int64_t charges = 0, refunds = 0;         // payment ledger entries
  int64_t retries = 0, late_replies = 0;    // orders.retries, orders.late_replies summed
  int64_t messages = 0;                     // outbox rows of the three services
  int64_t inbox_rows = 0;                   // inbox rows of the three services
  int64_t duplicates_skipped = 0;           // deliveries the inboxes skipped (sum deliveries - 1)
  int64_t kafka_records = 0;                // records on the four topics (duplicates included)
  std::vector<std::string> violations;

  // Orders with that outcome (0 when none).
  int64_t Outcome(const std::string& name) const {
    const auto found = outcomes.find(name);
    return found == outcomes.end() ? 0 : found->second;
  }
};

class SagaTest : public outboxd::it::OutboxdTest {
 protected:
  // Creates the schemas <tag>_orders, _stock and _payment with inbox.sql, outbox.sql and the
  // service's file; points config() at their outbox tables in envelope-protobuf.
  void SetUp() override;
  // Kills the children, drops the schemas, then the base fixture cleans up.
  void TearDown() override;

  // `delivery`: "at_least_once" or "exactly_once" (consumers then read_committed).
  void SetDelivery(const std::string& delivery);
  // Starts outboxd (config() plus the "version" header placement); with `wait`, until the slot
  // streams. The process belongs to the base fixture; relay() is the latest one.
  absl::Status StartRelay(bool wait = true);
  outboxd::it::OutboxdProcess* relay() { return relay_; }

  // Starts (or restarts, after a SIGKILL of the running one) "order", "stock" or "payment".
  absl::Status StartService(const std::string& role, const std::vector<std::string>& extra = {});
  consumer_test::ChildProcess* service(const std::string& role) { return services_[role].get(); }
  // Starts the order tool for orders [first, first + count) at `per_second` (0: at once).
  absl::StatusOr<consumer_test::ChildProcess*> StartPlacing(int first, int count, int per_second);

  // After a Postgres restart: replaces the base fixture's pg() and admin() connections with
  // new ones, trying for up to a minute.
  absl::Status ReconnectPg();
  // Orders in CONFIRMED or CANCELLED; -1 if the query fails.
  int64_t SettledOrders();
  // Waits until `orders` orders are settled and every message written is in its consumer's
  // inbox (nothing left in flight). The failure names what was left.
  absl::Status WaitSettledAndQuiet(int64_t orders, absl::Duration timeout);
  // Reads every table (and the topics) and checks the saga's invariants.
  Accounting Audit();
  // One line per figure, for the test's output.
  static std::string Describe(const Accounting& accounting);

  std::string Schema(const std::string& service) const { return prefix_ + "_" + service; }
  // conninfo with search_path = the service's schema.
  std::string Conninfo(const std::string& service) const;

  std::string prefix_;  // the schemas' prefix
  std::string delivery_ = "at_least_once";
  int step_timeout_ms_ = 5000, max_attempts_ = 3;

 private:
  outboxd::it::OutboxdProcess* relay_ = nullptr;
  std::map<std::string, std::unique_ptr<consumer_test::ChildProcess>> services_;
  std::vector<std::unique_ptr<consumer_test::ChildProcess>> placers_;
  int launches_ = 0;
};

}  // namespace saga_test
