#pragma once
// Runs one outboxd command (check, slot, run) as a child process with extra environment
// variables, capturing stdout and stderr separately, for the CLI tests.

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace outboxd::cli {

struct CliResult {
  int exit_code = -1;  // -1 when killed by a signal.
  std::string out;     // stdout
  std::string err;     // stderr
  std::string All() const { return out + err; }
};

// A started child. The destructor SIGKILLs and reaps it if it still runs.
class CliProcess {
 public:
  // Execs `binary` with `args`; `env` is added to (or replaces in) the test's environment.
  // Output goes to files under `dir`, named after `name`.
  static absl::StatusOr<std::unique_ptr<CliProcess>> Start(
      const std::string& binary, const std::vector<std::string>& args,
      const std::map<std::string, std::string>& env, const std::string& dir,
      const std::string& name);
  ~CliProcess();
  CliProcess(const CliProcess&) = delete;
  CliProcess& operator=(const CliProcess&) = delete;

  // Waits up to `timeout` for the exit; DeadlineExceeded (still running) otherwise.
  absl::StatusOr<CliResult> Wait(absl::Duration timeout);
  // SIGTERM, then Wait(timeout).
  absl::StatusOr<CliResult> Terminate(absl::Duration timeout);
  pid_t pid() const { return pid_; }

 private:
  CliProcess(pid_t pid, std::string out_path, std::string err_path)
      : pid_(pid), out_path_(std::move(out_path)), err_path_(std::move(err_path)) {}
  CliResult Collect(int exit_code) const;

  pid_t pid_;
  bool reaped_ = false;
  std::string out_path_;
  std::string err_path_;
};

// Start + Wait.
absl::StatusOr<CliResult> RunCli(const std::string& binary, const std::vector<std::string>& args,
                                 const std::map<std::string, std::string>& env,
                                 const std::string& dir, const std::string& name,
                                 absl::Duration timeout = absl::Seconds(60));

}  // namespace outboxd::cli
