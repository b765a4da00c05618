#include "relay/stop_signal.h"

#include <sys/signalfd.h>
#include <unistd.h>

#include <cstring>

#include "common/log.h"

namespace outboxd::relay {

void StopSignal::Consume() {
  // Naming the sender tells an operator who stopped the relay (a supervisor, a stray pkill).
  signalfd_siginfo info{};
  if (::read(fd_, &info, sizeof info) == sizeof info) {
    log::Info("received {} from pid {}", ::strsignal(static_cast<int>(info.ssi_signo)),
              info.ssi_pid);
  }
  requested_ = true;
}

}  // namespace outboxd::relay
