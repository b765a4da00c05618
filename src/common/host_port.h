#pragma once
// "host:port" listen addresses, as written in the config file and taken by servers.

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace outboxd {

struct HostPort {
  std::string host;   // A name or an IP address; an IPv6 address without its brackets.
  uint16_t port = 0;  // 0 asks the system for a free port.
};

// Parses "host:port", "[ipv6]:port" or "name:port". Returns InvalidArgument, with the text
// and the fix, when the host is empty, an IPv6 address lacks brackets, or the port is not a
// number in 0..65535. Names are not resolved here.
absl::StatusOr<HostPort> ParseHostPort(std::string_view text);

}  // namespace outboxd
