#pragma once
// RAII launcher for the daemon under test: `outboxd run --config FILE` (or other arguments),
// stdout and stderr appended to a log file.

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace outboxd::it {

// How a child ended: its exit code, or the signal that killed it.
struct ExitStatus {
  std::optional<int> code;
  std::optional<int> signal;
  bool ExitedZero() const { return code == 0; }
  std::string ToString() const;
};

// One running outboxd. The destructor kills it (SIGKILL) if it still runs, and reaps it.
// Not thread-safe; use from the test thread.
class OutboxdProcess {
 public:
  // Forks and execs `binary run --config config_path`; output goes to `log_path` (appended).
  // The child also gets SIGKILL if the test process dies.
  static absl::StatusOr<std::unique_ptr<OutboxdProcess>> Start(const std::string& binary,
                                                               const std::string& config_path,
                                                               const std::string& log_path);
  // Forks and execs `binary` with `args` (after argv[0]), e.g. {"run", "--debezium-config", F};
  // otherwise as Start.
  static absl::StatusOr<std::unique_ptr<OutboxdProcess>> StartWithArgs(
      const std::string& binary, const std::vector<std::string>& args, const std::string& log_path);
  ~OutboxdProcess();
  OutboxdProcess(const OutboxdProcess&) = delete;
  OutboxdProcess& operator=(const OutboxdProcess&) = delete;

  // SIGTERM, then waits up to `timeout` for exit. DeadlineExceeded (process left running)
  // if it does not exit in time.
  absl::StatusOr<ExitStatus> Stop(absl::Duration timeout);
  // SIGKILL and reap.
  ExitStatus Kill();
  // Waits up to `timeout` for the process to exit on its own; DeadlineExceeded otherwise.
  absl::StatusOr<ExitStatus> WaitForExit(absl::Duration timeout);
  // True while the process has not exited (reaps it if it has).
  bool Running();

  pid_t pid() const { return pid_; }
  const std::string& log_path() const { return log_path_; }

 private:
  OutboxdProcess(pid_t pid, std::string log_path) : pid_(pid), log_path_(std::move(log_path)) {}
  // Non-blocking reap; true if the process has exited (status then in exit_).
  bool Reap();

  pid_t pid_;
  std::string log_path_;
  std::optional<ExitStatus> exit_;
};

}  // namespace outboxd::it
