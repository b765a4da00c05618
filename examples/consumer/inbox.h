#pragma once
// The idempotent write: one Postgres transaction per event that records its id in the inbox
// (inbox.sql) and, only if the id is new, runs the caller's business write in the same
// transaction.

#include <libpq-fe.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "outboxd/v1/event.pb.h"

namespace consumer {

// Where a record was read, stored with the event for audits.
struct RecordPosition {
  std::string_view topic;
  int32_t partition = 0;
  int64_t offset = 0;
};

enum class ApplyResult {
  kApplied,    // new event: inbox row and business write committed
  kDuplicate,  // event id already in the inbox: nothing written (a replay)
  kRetry,      // transient failure (connection lost, deadlock...): nothing committed, try again
  kPermanent,  // the database refuses this event (e.g. payload not JSON): retrying cannot help
};

struct ApplyOutcome {
  ApplyResult result;
  std::string error;  // Postgres' message for kRetry and kPermanent
};

// The outcome of a failed statement: kRetry or kPermanent (pg_result.h's IsTransient).
ApplyOutcome StatementFailure(PGconn* conn, const PGresult* result);

// The business write of a new event, run on `conn` inside the inbox's open transaction: it
// returns kApplied when its statements succeeded, or StatementFailure() of the one that failed
// (the inbox then rolls everything back). It must not BEGIN, COMMIT or ROLLBACK itself.
using BusinessWrite = std::function<ApplyOutcome(PGconn* conn, const outboxd::v1::Event& event)>;

struct InboxSettings {
  std::string conninfo;                      // libpq conninfo; its search_path finds the tables
  std::string application_name;              // pg_stat_activity's name unless conninfo says one
  std::vector<std::string> business_tables;  // must exist besides `inbox`
  std::string setup_hint;                    // how to create them, for the error message
};

// Owns one libpq connection. Single-threaded: used from the consumer's poll loop only.
class Inbox {
 public:
  // Connects and checks that `inbox` and the business tables are visible; nullptr with `error`
  // naming the problem and the fix otherwise.
  static std::unique_ptr<Inbox> Connect(const InboxSettings& settings, std::string& error);
  ~Inbox();
  Inbox(const Inbox&) = delete;
  Inbox& operator=(const Inbox&) = delete;

  // Applies `event` at most once, whatever the number of calls: `write` runs only when the
  // event's id is new. Reconnects first if the connection was lost. A kRetry may have committed
  // after all (a COMMIT whose answer was lost): the next call then returns kDuplicate, never a
  // second business write.
  ApplyOutcome Apply(const outboxd::v1::Event& event, const RecordPosition& from,
                     const BusinessWrite& write);

 private:
  explicit Inbox(PGconn* conn) : conn_(conn) {}
  // Runs the statements of one transaction; the caller rolls back on failure.
  ApplyOutcome ApplyInTransaction(const outboxd::v1::Event& event, const RecordPosition& from,
                                  const BusinessWrite& write);

  PGconn* conn_;
};

}  // namespace consumer
