#pragma once
// Ties the position record to a running relay: checks each server the relay connects to
// against the last record (resume_check.h) and, on its own thread, writes the newest confirmed
// position at a bounded cadence (never per event), plus once more at shutdown.

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "position/position_store.h"
#include "position/resume_check.h"

namespace outboxd::position {

struct GuardOptions {
  std::string slot;
  bool allow_new_slot = false;               // --allow-new-slot
  std::chrono::milliseconds interval{5000};  // At most one write per interval.
  std::function<Lsn()> confirmed;            // The newest flush position sent; thread-safe.
};

class PositionGuard {
 public:
  // `store` must outlive the guard.
  PositionGuard(PositionStore& store, GuardOptions options);
  ~PositionGuard();  // Stop().
  PositionGuard(const PositionGuard&) = delete;
  PositionGuard& operator=(const PositionGuard&) = delete;

  // Loads the last record on first use (Unavailable while Kafka does not answer: the relay
  // retries), then CheckResume. On OK, records `server` as the one positions now refer to.
  // Runs on the relay's loop thread, before the slot is created or streamed from.
  absl::Status Check(const ServerView& server);

  // Starts the writer thread. Stop() writes the final position (if it moved) and joins.
  void Start();
  void Stop();

 private:
  void WriterLoop();
  // Writes the record if it changed (or none was written by this run); true when it wrote.
  absl::StatusOr<bool> WriteIfMoved(int timeout_ms);

  PositionStore& store_;
  const GuardOptions options_;
  bool loaded_ = false;  // Loop thread only.
  absl::Mutex mu_;
  std::optional<PositionRecord> last_ ABSL_GUARDED_BY(mu_);  // Loaded or last written.
  std::optional<ServerView> server_ ABSL_GUARDED_BY(mu_);    // Accepted by the last Check.
  bool written_once_ ABSL_GUARDED_BY(mu_) = false;           // By this run.
  absl::Notification stop_;
  std::thread writer_;
};

}  // namespace outboxd::position
