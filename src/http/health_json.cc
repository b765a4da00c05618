#include "http/health_json.h"

#include "fmt/format.h"

namespace outboxd::http {
namespace {

std::string ComponentJson(const metrics::Health::Component& c) {
  return fmt::format("{{\"ok\":{},\"reason\":{}}}", c.ok ? "true" : "false", JsonString(c.reason));
}

}  // namespace

std::string JsonString(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          fmt::format_to(std::back_inserter(out), "\\u{:04x}", static_cast<unsigned>(c));
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

std::string HealthzBody(std::string_view version, double uptime_seconds) {
  return fmt::format("{{\"status\":\"alive\",\"version\":{},\"uptime_seconds\":{:.3f}}}\n",
                     JsonString(version), uptime_seconds);
}

std::string ReadyzBody(const metrics::Health::Snapshot& health) {
  return fmt::format(
      "{{\"status\":\"{}\",\"components\":{{\"streaming\":{},\"producer\":{},\"slot\":{}}}}}\n",
      health.Ready() ? "ready" : "not ready", ComponentJson(health.streaming),
      ComponentJson(health.producer), ComponentJson(health.slot));
}

}  // namespace outboxd::http
