#include "common/service_notify.h"

#include <systemd/sd-daemon.h>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace outboxd {

ServiceNotifier::ServiceNotifier() {
  const char* socket = std::getenv("NOTIFY_SOCKET");
  enabled_ = socket != nullptr && *socket != '\0';
  uint64_t usec = 0;
  // > 0 only when WATCHDOG_USEC is set and WATCHDOG_PID (if set) is this process.
  if (enabled_ && sd_watchdog_enabled(/*unset_environment=*/0, &usec) > 0) {
    watchdog_timeout_ = std::chrono::microseconds(usec);
  }
}

void ServiceNotifier::Update(bool ready, std::string_view status) {
  if (!enabled_) return;
  absl::MutexLock lock(&mu_);
  const bool send_ready = ready && !ready_sent_;
  if (!send_ready && status == last_status_) return;
  last_status_ = std::string(status);
  std::string message = send_ready ? "READY=1\n" : "";
  message += "STATUS=";
  message += status;
  // Errors (the socket gone) are not worth stopping for: systemd would restart us anyway.
  sd_notify(/*unset_environment=*/0, message.c_str());
  ready_sent_ = ready_sent_ || send_ready;
}

void ServiceNotifier::LoopTurned(TimePoint now) {
  if (watchdog_timeout_.count() == 0) return;
  if (now - last_feed_ < watchdog_timeout_ / 3) return;
  last_feed_ = now;
  sd_notify(/*unset_environment=*/0, "WATCHDOG=1");
}

ServiceNotifier::TimePoint ServiceNotifier::WatchdogDue() const {
  if (watchdog_timeout_.count() == 0) return TimePoint::max();
  return last_feed_ + watchdog_timeout_ / 3;
}

}  // namespace outboxd
