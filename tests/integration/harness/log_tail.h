#pragma once
// Reading back log files for failure reports.

#include <string>

namespace outboxd::it {

// The last `lines` lines of the file at `path` ("" if unreadable).
std::string LogTail(const std::string& path, int lines);

// Number of lines of the file at `path` that contain `needle`.
int CountLinesContaining(const std::string& path, const std::string& needle);

}  // namespace outboxd::it
