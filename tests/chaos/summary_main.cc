// chaos_summary reset FILE | print FILE LABEL
//
// The first and last test of the chaos (and resources) label: `reset` empties the table file
// the scenarios append to; `print` renders it. ctest shows a passing test's output only with
// -V, so when ctest is the parent, `print` also writes the table to ctest's own stdout: the
// table then appears in the CI log between ctest's progress lines (OUTBOXD_CHAOS_SUMMARY_QUIET
// turns that off). ctest's stdout is borrowed with pidfd_getfd, which shares its file offset,
// so a log file ctest writes to is appended to, not overwritten; without it only a pipe or
// terminal is written to.

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "fmt/format.h"
#include "support/summary.h"

namespace {

bool ParentIsCtest() {
  std::ifstream comm(fmt::format("/proc/{}/comm", getppid()));
  std::string name;
  std::getline(comm, name);
  return name == "ctest";
}

// A descriptor for the parent's stdout, or -1.
int ParentStdout() {
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_getfd)
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, getppid(), 0));
  if (pidfd >= 0) {
    const int fd = static_cast<int>(syscall(SYS_pidfd_getfd, pidfd, STDOUT_FILENO, 0));
    close(pidfd);
    if (fd >= 0) return fd;
  }
#endif
  // A new open file description has an offset of its own: only safe where offsets do not
  // matter.
  const int fd = open(fmt::format("/proc/{}/fd/1", getppid()).c_str(), O_WRONLY);
  struct stat st {};
  if (fd >= 0 && fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) return fd;
  if (fd >= 0) close(fd);
  return -1;
}

void WriteToParentStdout(const std::string& text) {
  const int fd = ParentStdout();
  if (fd < 0) return;
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  close(fd);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string usage = "usage: chaos_summary reset FILE | print FILE LABEL\n";
  if (argc < 3) {
    std::cerr << usage;
    return 2;
  }
  const std::string verb = argv[1];
  const std::string path = argv[2];
  if (verb == "reset" && argc == 3) {
    std::error_code ec;
    std::filesystem::remove(path, ec);
    if (ec) {
      std::cerr << "cannot remove " << path << ": " << ec.message() << "\n";
      return 1;
    }
    return 0;
  }
  if (verb == "print" && argc == 4) {
    const absl::StatusOr<std::vector<outboxd::chaos::SummaryRow>> rows =
        outboxd::chaos::ReadSummary(path);
    if (!rows.ok()) {
      std::cerr << rows.status() << "\n";
      return 1;
    }
    std::string text = fmt::format("\n==== {} summary ({} scenario(s), from {}) ====\n", argv[3],
                                   rows->size(), path);
    text += rows->empty() ? "(no scenario ran)\n" : outboxd::chaos::RenderSummary(*rows);
    text += "\n";
    std::cout << text << std::flush;
    if (ParentIsCtest() && std::getenv("OUTBOXD_CHAOS_SUMMARY_QUIET") == nullptr) {
      WriteToParentStdout(text);
    }
    return 0;
  }
  std::cerr << usage;
  return 2;
}
