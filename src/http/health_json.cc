#include "http/health_json.h"

#include "common/json_string.h"
#include "fmt/format.h"

namespace outboxd::http {
namespace {

std::string JsonString(std::string_view text) {
  std::string out;
  AppendJsonString(out, text);
  return out;
}

std::string ComponentJson(const metrics::Health::Component& c) {
  return fmt::format("{{\"ok\":{},\"reason\":{}}}", c.ok ? "true" : "false", JsonString(c.reason));
}

}  // namespace

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
