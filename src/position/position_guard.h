#pragma once
// Ties the position record to a running relay: checks each server the relay connects to
// against the last record (resume_check.h), and says which record to write once the relay has
// confirmed a newer position. The relay writes it through the events' producer
// (relay/slot_stream.cc), at a bounded cadence, never per event.

#include <chrono>
#include <future>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "position/position_store.h"
#include "position/resume_check.h"

namespace outboxd::position {

struct GuardOptions {
  std::string slot;
  bool allow_new_slot = false;  // --allow-new-slot
  // At most one write per interval. Short, because a Postgres crash moves the slot back to its
  // last checkpoint and the replay skips only what the record covers (PublishedUpTo).
  std::chrono::milliseconds interval{100};
};

// Used on the relay's loop thread only.
class PositionGuard {
 public:
  // `store` must outlive the guard.
  PositionGuard(PositionStore& store, GuardOptions options);
  ~PositionGuard();  // Waits for a prefetch still running.
  PositionGuard(const PositionGuard&) = delete;
  PositionGuard& operator=(const PositionGuard&) = delete;

  // Starts reading the last record on another thread, so that Kafka answers while the relay
  // connects to Postgres (start-up time is also restart time after a failover). Optional:
  // Check reads it itself when this was not called. Call at most once, before Check.
  void Prefetch();
  // Makes the next Check read the record from Kafka again. exactly_once calls it after each
  // InitTransactions: only then is the previous owner's last transaction (this process's own
  // after a commit that timed out) settled, committed or aborted, and a read_committed read
  // tells which. Not with Prefetch, which may read before that.
  void Reload() { loaded_ = false; }

  // Loads the last record on first use (Unavailable while Kafka does not answer: the relay
  // retries) and makes sure the topic exists (a failure there is logged: no record is written
  // until a later Check succeeds), then CheckResume. On OK, records `server` as the one
  // positions now refer to.
  // Runs before the slot is created or streamed from.
  absl::Status Check(const ServerView& server);

  // The record to write now that Kafka acknowledged everything before `acknowledged`; nullopt
  // before the first accepted Check, while the topic is not ready, while nothing is
  // acknowledged, or when nothing moved since the last record written. Call Written() once the
  // record was handed to Kafka.
  // exactly_once passes `partial` when it commits inside a Postgres transaction it splits.
  std::optional<PositionRecord> Next(Lsn acknowledged, PartialTransaction partial = {}) const;
  // After an accepted Check: the transactions of this server that end at or below this LSN
  // are in Kafka already (PublishedUpTo); invalid when none is known.
  Lsn published_up_to() const;
  // ... and of the transaction right after it, the events already in Kafka (a split one).
  PartialTransaction published_partial() const;
  void Written(const PositionRecord& record);

  const std::string& topic() const { return store_.topic(); }
  std::chrono::milliseconds interval() const { return options_.interval; }

 private:
  struct Loaded {
    absl::StatusOr<std::optional<PositionRecord>> record;
    absl::Status topic;  // Of making sure the topic exists, when no record was found.
  };
  // Reads the record and, when there is none, makes sure the topic exists; logs the time.
  Loaded Load();
  // Sets topic_ready_: from `known` when it failed, else by making sure the topic exists
  // (unless already known to). A failure is logged: no record is written meanwhile.
  void EnsureTopic(absl::Status known);

  PositionStore& store_;
  const GuardOptions options_;
  bool loaded_ = false;
  // The read Prefetch started; consumed by the first Check.
  std::future<Loaded> prefetched_;
  std::optional<PositionRecord> last_;  // Loaded or last written.
  std::optional<ServerView> server_;    // Accepted by the last Check.
  bool written_once_ = false;           // By this run.
  // The topic exists as a compacted one: only then are records written, so that a broker
  // that auto-creates topics never makes it an ordinary one.
  bool topic_ready_ = false;
};

}  // namespace outboxd::position
