#pragma once
// The process's request to stop (SIGTERM/SIGINT on a signalfd). Latched once seen, so the
// supervisor still knows after the pipeline that read it has gone: a stop always ends the
// process, whatever the pipeline's final steps returned.

namespace outboxd::relay {

class StopSignal {
 public:
  // `fd` becomes readable when a stop is requested: a signalfd, or any fd in tests. Not owned.
  explicit StopSignal(int fd) : fd_(fd) {}
  int fd() const { return fd_; }
  // Reads the request off the fd (logging who sent a signal) and latches it.
  void Consume();
  bool requested() const { return requested_; }

 private:
  const int fd_;
  bool requested_ = false;
};

}  // namespace outboxd::relay
