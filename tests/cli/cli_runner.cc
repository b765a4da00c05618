#include "cli_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

extern char** environ;

namespace outboxd::cli {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// The test's environment with `extra` set on top, as "NAME=value" strings.
std::vector<std::string> MergedEnvironment(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> out;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    if (extra.count(name) == 0) out.push_back(entry);
  }
  for (const auto& [name, value] : extra) out.push_back(absl::StrCat(name, "=", value));
  return out;
}

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<CliProcess>> CliProcess::Start(
    const std::string& binary, const std::vector<std::string>& args,
    const std::map<std::string, std::string>& env, const std::string& dir,
    const std::string& name) {
  const std::string out_path = absl::StrCat(dir, "/", name, ".stdout");
  const std::string err_path = absl::StrCat(dir, "/", name, ".stderr");
  const int out_fd = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int err_fd = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out_fd < 0 || err_fd < 0) {
    return absl::InternalError(absl::StrCat("cannot create output files in ", dir));
  }
  std::vector<std::string> argv_strings = {binary};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<std::string> env_strings = MergedEnvironment(env);
  std::vector<char*> argv = Pointers(argv_strings);
  std::vector<char*> envp = Pointers(env_strings);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) return absl::InternalError(absl::StrCat("fork: ", strerror(errno)));
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    const int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
    dup2(out_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  close(out_fd);
  close(err_fd);
  return std::unique_ptr<CliProcess>(new CliProcess(pid, out_path, err_path));
}

CliProcess::~CliProcess() {
  if (reaped_) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
}

CliResult CliProcess::Collect(int exit_code) const {
  return CliResult{exit_code, ReadFile(out_path_), ReadFile(err_path_)};
}

absl::StatusOr<CliResult> CliProcess::Wait(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    int status = 0;
    const pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      reaped_ = true;
      return Collect(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
    if (r < 0) return absl::InternalError(absl::StrCat("waitpid: ", strerror(errno)));
    if (absl::Now() > deadline) {
      return absl::DeadlineExceededError(absl::StrCat("outboxd still runs after ",
                                                      absl::FormatDuration(timeout),
                                                      "; stderr so far:\n", ReadFile(err_path_)));
    }
    absl::SleepFor(absl::Milliseconds(20));
  }
}

absl::StatusOr<CliResult> CliProcess::Terminate(absl::Duration timeout) {
  kill(pid_, SIGTERM);
  return Wait(timeout);
}

absl::StatusOr<CliResult> RunCli(const std::string& binary, const std::vector<std::string>& args,
                                 const std::map<std::string, std::string>& env,
                                 const std::string& dir, const std::string& name,
                                 absl::Duration timeout) {
  absl::StatusOr<std::unique_ptr<CliProcess>> process =
      CliProcess::Start(binary, args, env, dir, name);
  if (!process.ok()) return process.status();
  return (*process)->Wait(timeout);
}

}  // namespace outboxd::cli
