#pragma once
// The WAL guard (DESIGN.md section 8): a thread of its own that reads the slot's row of
// pg_replication_slots on an ordinary connection (never the replication one) every few
// seconds, exports it as the outboxd_slot_* gauges of its slot, turns Health's slot component
// not ready while the slot is at risk of being invalidated, and latches lost() once it is
// invalidated or dropped, for the relay to stop with exit code 6.
//
// When the monitor cannot reach Postgres it keeps its last verdict (readiness and lost()
// unchanged; the gauges keep their last values), says so once, and reconnects with backoff:
// the relay's own connection already reports an unreachable server, and a monitor-only fault
// (e.g. max_connections reached) must not flap readiness.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "metrics/health.h"
#include "metrics/metrics.h"
#include "pg/interruptible_connection.h"
#include "pg/slot_verdict.h"

namespace outboxd::pg {

struct SlotMonitorOptions {
  std::string conninfo;  // [postgres] conninfo; opened as an ordinary session.
  std::string slot;
  std::chrono::milliseconds interval{5000};  // [postgres] slot_check_interval_ms
  // [postgres] min_safe_wal_size_mb in bytes; 0: no threshold; < 0: automatic
  // (EffectiveMinSafeWal, once max_slot_wal_keep_size is read).
  int64_t min_safe_wal_size_bytes = -1;
};

class SlotMonitor {
 public:
  // `metrics` and `health` must outlive the monitor. The gauges are those of
  // `metrics.Slot(options.slot)`.
  SlotMonitor(SlotMonitorOptions options, metrics::RelayMetrics& metrics, metrics::Health& health);
  ~SlotMonitor();  // Stop().
  SlotMonitor(const SlotMonitor&) = delete;
  SlotMonitor& operator=(const SlotMonitor&) = delete;

  // Starts the thread, which checks at once and then every interval. Internal if the wake fd
  // cannot be created. Call at most once.
  absl::Status Start();
  // Wakes the thread out of any wait (connect, query, interval) and joins it; returns within
  // milliseconds. Idempotent; safe without Start().
  void Stop();

  // True once the slot was found invalidated (wal_status = lost) or dropped; stays true.
  // Thread-safe and cheap (one atomic load): the relay loop asks every iteration.
  bool lost() const { return lost_.load(std::memory_order_acquire); }
  // What was lost and what to do (the relay's exit message); "" until lost(). Thread-safe.
  std::string lost_message() const;

 private:
  void Run();  // The monitor thread.
  // One check: (re)connects if needed, reads the row, applies the verdict.
  absl::Status CheckOnce();
  absl::Status Connect();
  void Apply(const SlotState& state);
  void UpdateGauges(const SlotState& state);
  // Sleeps `delay` unless Stop() is called first (then true).
  bool WaitOrStop(std::chrono::milliseconds delay) const;

  const SlotMonitorOptions options_;
  SlotPolicy policy_;              // Its threshold is set at each Connect() (the server's setting).
  metrics::SlotMetrics& metrics_;  // This slot's.
  metrics::Health& health_;
  int wake_fd_ = -1;  // eventfd; readable once Stop() is called.
  std::thread thread_;

  // Monitor-thread state.
  std::optional<InterruptibleConnection> conn_;
  std::string sql_;  // SlotStateSql for conn_'s server.
  SlotHistory history_;
  SlotRisk last_risk_ = SlotRisk::kSafe;

  // Set once by the monitor thread: the message first, then lost_ (release), so a reader that
  // sees lost() finds the message.
  mutable absl::Mutex mu_;
  std::string lost_message_ ABSL_GUARDED_BY(mu_);
  std::atomic<bool> lost_{false};
};

}  // namespace outboxd::pg
