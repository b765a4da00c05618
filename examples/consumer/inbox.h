#pragma once
// The idempotent write: one Postgres transaction per event that records its id in the inbox
// and, only if the id is new, applies the business write (tables in schema.sql).

#include <libpq-fe.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

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

// Owns one libpq connection. Single-threaded: used from the consumer's poll loop only.
class Inbox {
 public:
  // Connects and checks that schema.sql's tables are visible; nullptr with `error` naming the
  // problem and the fix otherwise.
  static std::unique_ptr<Inbox> Connect(const std::string& conninfo, std::string& error);
  ~Inbox();
  Inbox(const Inbox&) = delete;
  Inbox& operator=(const Inbox&) = delete;

  // Applies `event` at most once, whatever the number of calls. Reconnects first if the
  // connection was lost. A kRetry may have committed after all (a COMMIT whose answer was
  // lost): the next call then returns kDuplicate, never a second business write.
  ApplyOutcome Apply(const outboxd::v1::Event& event, const RecordPosition& from);

 private:
  explicit Inbox(PGconn* conn) : conn_(conn) {}
  // Runs the statements of one transaction; the caller rolls back on failure.
  ApplyOutcome ApplyInTransaction(const outboxd::v1::Event& event, const RecordPosition& from);

  PGconn* conn_;
};

}  // namespace consumer
