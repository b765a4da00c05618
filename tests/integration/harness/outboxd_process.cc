#include "harness/outboxd_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "harness/wait.h"

namespace outboxd::it {

std::string ExitStatus::ToString() const {
  if (code.has_value()) return absl::StrCat("exit code ", *code);
  if (signal.has_value())
    return absl::StrCat("killed by signal ", *signal, " (", strsignal(*signal), ")");
  return "running";
}

absl::StatusOr<std::unique_ptr<OutboxdProcess>> OutboxdProcess::Start(
    const std::string& binary, const std::string& config_path, const std::string& log_path) {
  return StartWithArgs(binary, {"run", "--config", config_path}, log_path);
}

absl::StatusOr<std::unique_ptr<OutboxdProcess>> OutboxdProcess::StartWithArgs(
    const std::string& binary, const std::vector<std::string>& arguments,
    const std::string& log_path) {
  const int log_fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    return absl::InternalError(absl::StrCat("open ", log_path, ": ", strerror(errno)));
  }
  // Everything the child needs is prepared before fork: after it only async-signal-safe calls.
  std::vector<std::string> args = {binary};
  args.insert(args.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = getpid();

  const pid_t pid = fork();
  if (pid < 0) {
    close(log_fd);
    return absl::InternalError(absl::StrCat("fork: ", strerror(errno)));
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    const int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
    dup2(log_fd, STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    execv(argv[0], argv.data());
    static const char kMessage[] = "integration harness: execv of outboxd failed\n";
    (void)!write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
    _exit(127);
  }
  close(log_fd);
  return std::unique_ptr<OutboxdProcess>(new OutboxdProcess(pid, log_path));
}

OutboxdProcess::~OutboxdProcess() {
  if (!exit_.has_value()) Kill();
}

bool OutboxdProcess::Reap() {
  if (exit_.has_value()) return true;
  int status = 0;
  const pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == 0) return false;
  ExitStatus exit;
  if (r < 0) {
    exit.code = -1;  // Not our child any more (should not happen); treat as gone.
  } else if (WIFEXITED(status)) {
    exit.code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    exit.signal = WTERMSIG(status);
  } else {
    return false;  // Stopped/continued: still alive.
  }
  exit_ = exit;
  return true;
}

bool OutboxdProcess::Running() { return !Reap(); }

absl::StatusOr<ExitStatus> OutboxdProcess::WaitForExit(absl::Duration timeout) {
  if (!WaitUntil([&] { return Reap(); }, timeout, absl::Milliseconds(20))) {
    return absl::DeadlineExceededError(absl::StrCat("outboxd (pid ", pid_, ") still running after ",
                                                    absl::FormatDuration(timeout)));
  }
  return *exit_;
}

absl::StatusOr<ExitStatus> OutboxdProcess::Stop(absl::Duration timeout) {
  if (!Reap()) kill(pid_, SIGTERM);
  return WaitForExit(timeout);
}

ExitStatus OutboxdProcess::Kill() {
  if (!Reap()) {
    kill(pid_, SIGKILL);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    ExitStatus exit;
    if (WIFEXITED(status)) {
      exit.code = WEXITSTATUS(status);
    } else {
      exit.signal = WTERMSIG(status);
    }
    exit_ = exit;
  }
  return *exit_;
}

}  // namespace outboxd::it
