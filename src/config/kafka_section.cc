// [kafka]: librdkafka producer properties, passed through as strings.

#include <algorithm>

#include "config/sections.h"
#include "fmt/format.h"

namespace outboxd::config::internal {
namespace {

using Properties = std::vector<std::pair<std::string, std::string>>;

constexpr std::string_view kBootstrap = "bootstrap.servers";

// librdkafka takes every property as a string; booleans must be "true"/"false".
std::optional<std::string> PropertyText(const toml::node& node) {
  if (const auto* s = node.as_string()) return s->get();
  if (const auto* i = node.as_integer()) return fmt::format("{}", i->get());
  if (const auto* b = node.as_boolean()) return std::string(b->get() ? "true" : "false");
  // fmt prints the shortest text that reads back as the same double, which strtod accepts.
  if (const auto* f = node.as_floating_point()) return fmt::format("{}", f->get());
  return std::nullopt;
}

// An unquoted key such as bootstrap.servers = "..." is a dotted key to TOML, i.e. a nested
// table; flattening the nesting back with dots gives the property librdkafka expects.
absl::Status Flatten(std::string_view source, const toml::table& table, const std::string& prefix,
                     Properties& out) {
  for (const auto& [key, node] : table) {
    std::string name =
        prefix.empty() ? std::string(key.str()) : prefix + "." + std::string(key.str());
    if (const toml::table* nested = node.as_table()) {
      if (auto s = Flatten(source, *nested, name, out); !s.ok()) return s;
      continue;
    }
    std::optional<std::string> text = PropertyText(node);
    if (!text) {
      return absl::InvalidArgumentError(fmt::format(
          "{}[kafka] \"{}\" must be a string, integer, boolean or float, got {}; write \"{}\" = "
          "\"value\"",
          Where(source, &node), name, TypeName(node), name));
    }
    out.emplace_back(std::move(name), std::move(*text));
  }
  return absl::OkStatus();
}

absl::Status CheckDuplicates(std::string_view source, const Properties& sorted) {
  for (size_t i = 1; i < sorted.size(); ++i) {
    if (sorted[i].first != sorted[i - 1].first) continue;
    return absl::InvalidArgumentError(fmt::format(
        "{}: [kafka] \"{}\" is set twice (once quoted, once as a dotted key); remove one", source,
        sorted[i].first));
  }
  return absl::OkStatus();
}

Properties::iterator FindProperty(Properties& properties, std::string_view name) {
  return std::find_if(properties.begin(), properties.end(),
                      [&](const auto& p) { return p.first == name; });
}

// Sets `property` to the value of environment variable `variable` when that is set, keeping
// `properties` sorted.
absl::Status ApplyOverride(const Environment& env, std::string_view variable,
                           std::string_view property, std::string_view fix,
                           Properties& properties) {
  auto value = ReadOverride(env, variable, fix);
  if (!value.ok()) return value.status();
  if (!value->has_value()) return absl::OkStatus();
  auto it = FindProperty(properties, property);
  if (it == properties.end()) {
    it = properties.emplace(
        std::lower_bound(properties.begin(), properties.end(), property,
                         [](const auto& p, std::string_view k) { return p.first < k; }),
        std::string(property), "");
  }
  it->second = std::move(**value);
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadKafka(std::string_view source, const toml::table* table, const Environment& env,
                       Properties& out) {
  Properties properties;
  if (table != nullptr) {
    if (auto s = Flatten(source, *table, "", properties); !s.ok()) return s;
  }
  std::stable_sort(properties.begin(), properties.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  if (auto s = CheckDuplicates(source, properties); !s.ok()) return s;
  if (auto s = ApplyOverride(env, kEnvBootstrapServers, kBootstrap,
                             "unset it or give host:port[,host:port...]", properties);
      !s.ok()) {
    return s;
  }
  if (auto s = ApplyOverride(env, kEnvSaslPassword, "sasl.password",
                             "unset it or give the SASL password", properties);
      !s.ok()) {
    return s;
  }
  auto bootstrap = FindProperty(properties, kBootstrap);
  if (bootstrap == properties.end() || bootstrap->second.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: [kafka] \"{}\" is {}; add \"{}\" = \"127.0.0.1:9092\" under [kafka] or set {}", source,
        kBootstrap, bootstrap == properties.end() ? "missing" : "empty", kBootstrap,
        kEnvBootstrapServers));
  }
  out = std::move(properties);
  return absl::OkStatus();
}

std::optional<std::string> RegionFromEnvironment(const Environment& env) {
  if (!env) return std::nullopt;
  if (auto region = env("AWS_REGION"); region && !region->empty()) return region;
  if (auto region = env("AWS_DEFAULT_REGION"); region && !region->empty()) return region;
  return std::nullopt;
}

absl::Status ReadKafkaIam(std::string_view source, const Environment& env, Properties& kafka,
                          KafkaIamConfig& out) {
  auto method = FindProperty(kafka, "sasl.oauthbearer.method");
  if (method == kafka.end() || method->second != "aws_msk_iam") {
    auto region = FindProperty(kafka, "aws_region");
    if (region == kafka.end()) return absl::OkStatus();
    return absl::InvalidArgumentError(fmt::format(
        "{}: [kafka] aws_region applies only to sasl.oauthbearer.method = \"aws_msk_iam\"; add "
        "that or remove aws_region",
        source));
  }
  kafka.erase(method);  // librdkafka knows only "default" and "oidc".
  out.aws_msk_iam = true;
  if (auto region = FindProperty(kafka, "aws_region"); region != kafka.end()) {
    out.aws_region = region->second;
    kafka.erase(region);
  } else {
    out.aws_region = RegionFromEnvironment(env).value_or("");
  }
  if (out.aws_region.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: [kafka] sasl.oauthbearer.method = \"aws_msk_iam\" needs the cluster's AWS region; "
        "add aws_region = \"us-east-1\" (your region) under [kafka] or set AWS_REGION",
        source));
  }
  const auto require = [&](std::string_view name, std::string_view value,
                           std::initializer_list<std::string_view> allowed) -> absl::Status {
    auto it = FindProperty(kafka, name);
    if (it == kafka.end()) {
      kafka.emplace(std::lower_bound(kafka.begin(), kafka.end(), name,
                                     [](const auto& p, std::string_view k) { return p.first < k; }),
                    std::string(name), std::string(value));
      return absl::OkStatus();
    }
    if (std::find(allowed.begin(), allowed.end(), it->second) != allowed.end()) {
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError(fmt::format(
        "{}: [kafka] \"{}\" = \"{}\" cannot carry MSK IAM tokens; set it to \"{}\" or remove "
        "it (MSK's IAM listeners are SASL_SSL, port 9098)",
        source, name, it->second, value));
  };
  // sasl.mechanisms is librdkafka's alias of sasl.mechanism.
  const bool alias = FindProperty(kafka, "sasl.mechanisms") != kafka.end();
  if (auto s =
          require(alias ? "sasl.mechanisms" : "sasl.mechanism", "OAUTHBEARER", {"OAUTHBEARER"});
      !s.ok()) {
    return s;
  }
  // SASL_PLAINTEXT only for test brokers: MSK itself never offers IAM without TLS.
  return require("security.protocol", "SASL_SSL", {"SASL_SSL", "sasl_ssl", "SASL_PLAINTEXT"});
}

}  // namespace outboxd::config::internal
