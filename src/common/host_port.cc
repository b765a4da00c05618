#include "common/host_port.h"

#include <charconv>

#include "fmt/format.h"

namespace outboxd {
namespace {

absl::Status Invalid(std::string_view text, std::string_view problem) {
  return absl::InvalidArgumentError(fmt::format(
      "listen address \"{}\" {}; write host:port, e.g. 127.0.0.1:8587, 0.0.0.0:8587 for every "
      "interface or [::1]:8587 for IPv6",
      text, problem));
}

}  // namespace

absl::StatusOr<HostPort> ParseHostPort(std::string_view text) {
  std::string_view host;
  std::string_view rest;
  if (text.starts_with('[')) {
    const size_t close = text.find(']');
    if (close == std::string_view::npos) return Invalid(text, "has no ] after the IPv6 address");
    host = text.substr(1, close - 1);
    rest = text.substr(close + 1);
    if (!rest.starts_with(':')) return Invalid(text, "has no :port after the ]");
    rest.remove_prefix(1);
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return Invalid(text, "has no :port");
    host = text.substr(0, colon);
    rest = text.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) {
      return Invalid(text, "is an IPv6 address without brackets");
    }
  }
  if (host.empty()) return Invalid(text, "has no host");
  unsigned port = 0;
  const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), port);
  if (rest.empty() || error != std::errc() || end != rest.data() + rest.size() || port > 65535) {
    return Invalid(text, "has a port that is not a number from 0 to 65535");
  }
  return HostPort{.host = std::string(host), .port = static_cast<uint16_t>(port)};
}

}  // namespace outboxd
