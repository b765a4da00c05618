#pragma once
// A child process with arguments of the test's choosing (the consumer under test), output
// appended to a log file. The harness's OutboxdProcess runs only `outboxd run`.

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace consumer_test {

// Not thread-safe; use from the test thread. The destructor SIGKILLs and reaps the child.
class ChildProcess {
 public:
  // Forks and execs argv[0] with `argv`; stdout and stderr go to `log_path`. The child gets
  // SIGKILL if the test process dies.
  static absl::StatusOr<std::unique_ptr<ChildProcess>> Start(const std::vector<std::string>& argv,
                                                             const std::string& log_path);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Waits up to `timeout` for the child to exit; its exit code, or 128 + the signal that
  // killed it. DeadlineExceeded if it still runs.
  absl::StatusOr<int> WaitForExit(absl::Duration timeout);
  // SIGTERM, then WaitForExit(timeout).
  absl::StatusOr<int> Stop(absl::Duration timeout);
  // SIGKILL and reap.
  void Kill();
  // Sends `signal` (e.g. SIGSTOP, SIGCONT) unless the child has exited.
  void Signal(int signal);

  const std::string& log_path() const { return log_path_; }

 private:
  ChildProcess(pid_t pid, std::string log_path) : pid_(pid), log_path_(std::move(log_path)) {}
  bool Reap(bool block);

  pid_t pid_;
  std::string log_path_;
  std::optional<int> exit_code_;
};

// The whole text of `path` ("" if unreadable), for assertions on a log.
std::string ReadFile(const std::string& path);

}  // namespace consumer_test
