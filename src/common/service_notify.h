#pragma once
// systemd's service notifications (sd_notify(3)) for a Type=notify unit: READY=1 once the relay
// streams, STATUS= lines as readiness changes, and WATCHDOG=1 from the relay loop's turns, so a
// stalled loop misses its WatchdogSec and systemd restarts it. Every call does nothing when
// NOTIFY_SOCKET is unset (not started by systemd).

#include <chrono>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace outboxd {

class ServiceNotifier {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  // Reads NOTIFY_SOCKET, and WATCHDOG_USEC/WATCHDOG_PID (sd_watchdog_enabled) for the watchdog.
  ServiceNotifier();
  ServiceNotifier(const ServiceNotifier&) = delete;
  ServiceNotifier& operator=(const ServiceNotifier&) = delete;

  bool enabled() const { return enabled_; }
  // The watchdog's timeout; zero when systemd set none.
  std::chrono::microseconds watchdog_timeout() const { return watchdog_timeout_; }

  // Sends STATUS=`status` when it differs from the last one sent, with READY=1 the first time
  // `ready` holds (READY=1 is sent once per process). Any thread.
  void Update(bool ready, std::string_view status);

  // Feeds the watchdog (WATCHDOG=1) when a third of its timeout has passed since the last feed.
  // Loop thread only.
  void LoopTurned(TimePoint now);
  // The latest time the loop must turn again to keep the watchdog fed; max() without a
  // watchdog. Loop thread only.
  TimePoint WatchdogDue() const;

 private:
  bool enabled_ = false;
  std::chrono::microseconds watchdog_timeout_{0};
  TimePoint last_feed_{};
  absl::Mutex mu_;
  bool ready_sent_ ABSL_GUARDED_BY(mu_) = false;
  std::string last_status_ ABSL_GUARDED_BY(mu_);
};

}  // namespace outboxd
