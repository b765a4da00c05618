#include "harness/status_client.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "httplib.h"

namespace outboxd::it {

absl::StatusOr<int> FreeLocalPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return absl::InternalError("socket() failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
  ::close(fd);
  if (!ok) return absl::InternalError("cannot bind 127.0.0.1:0");
  return ntohs(addr.sin_port);
}

absl::StatusOr<HttpAnswer> HttpGet(int port, const std::string& path) {
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(2);
  client.set_read_timeout(5);
  httplib::Result res = client.Get(path);
  if (!res) {
    return absl::UnavailableError(
        absl::StrCat("GET 127.0.0.1:", port, path, ": ", httplib::to_string(res.error())));
  }
  return HttpAnswer{res->status, res->body, res->get_header_value("Content-Type")};
}

absl::StatusOr<std::map<std::string, double>> ParseSamples(const std::string& text) {
  std::map<std::string, double> samples;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    // Label values may hold spaces, so the value is after the last space.
    const size_t space = line.rfind(' ');
    if (space == std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat("not a sample line: ", line));
    }
    const std::string value = line.substr(space + 1);
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (end == value.c_str() || *end != '\0') {
      return absl::InvalidArgumentError(absl::StrCat("bad sample value: ", line));
    }
    samples[line.substr(0, space)] = v;
  }
  return samples;
}

std::string SlotSample(const std::string& name, const std::string& slot) {
  return absl::StrCat(name, "{slot=\"", slot, "\"}");
}

std::map<std::string, double> SamplesBySlot(const std::map<std::string, double>& samples,
                                            const std::string& name) {
  const std::string prefix = absl::StrCat(name, "{slot=\"");
  std::map<std::string, double> by_slot;
  for (const auto& [key, value] : samples) {
    if (!key.starts_with(prefix) || !key.ends_with("\"}")) continue;
    const std::string slot = key.substr(prefix.size(), key.size() - prefix.size() - 2);
    if (slot.find('"') == std::string::npos) by_slot[slot] = value;
  }
  return by_slot;
}

}  // namespace outboxd::it
