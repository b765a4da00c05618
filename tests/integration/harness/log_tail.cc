#include "harness/log_tail.h"

#include <deque>
#include <fstream>

#include "absl/strings/str_join.h"

namespace outboxd::it {

std::string LogTail(const std::string& path, int lines) {
  std::ifstream file(path);
  std::deque<std::string> tail;
  std::string line;
  while (std::getline(file, line)) {
    tail.push_back(line);
    if (static_cast<int>(tail.size()) > lines) tail.pop_front();
  }
  return absl::StrJoin(tail, "\n");
}

int CountLinesContaining(const std::string& path, const std::string& needle) {
  std::ifstream file(path);
  std::string line;
  int count = 0;
  while (std::getline(file, line)) {
    if (line.find(needle) != std::string::npos) ++count;
  }
  return count;
}

}  // namespace outboxd::it
