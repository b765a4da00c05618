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

  auto override_value =
      ReadOverride(env, kEnvBootstrapServers, "unset it or give host:port[,host:port...]");
  if (!override_value.ok()) return override_value.status();
  auto bootstrap = std::find_if(properties.begin(), properties.end(),
                                [](const auto& p) { return p.first == kBootstrap; });
  if (override_value->has_value()) {
    if (bootstrap == properties.end()) {
      bootstrap = properties.emplace(
          std::lower_bound(properties.begin(), properties.end(), std::string(kBootstrap),
                           [](const auto& p, const std::string& k) { return p.first < k; }),
          std::string(kBootstrap), "");
    }
    bootstrap->second = std::move(**override_value);
  } else if (bootstrap == properties.end() || bootstrap->second.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: [kafka] \"{}\" is {}; add \"{}\" = \"127.0.0.1:9092\" under [kafka] or set {}", source,
        kBootstrap, bootstrap == properties.end() ? "missing" : "empty", kBootstrap,
        kEnvBootstrapServers));
  }
  out = std::move(properties);
  return absl::OkStatus();
}

}  // namespace outboxd::config::internal
