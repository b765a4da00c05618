#include "registry/registry_client.h"

#include <httplib.h>

#include "common/json_string.h"
#include "fmt/format.h"
#include "simdjson.h"

namespace outboxd::registry {
namespace {

constexpr std::string_view kContentType = "application/vnd.schemaregistry.v1+json";

// Confluent's error body: {"error_code":40901,"message":"..."}; the text itself otherwise.
std::string ErrorMessage(const std::string& body) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  std::string_view message;
  if (parser.parse(body).get(doc) == simdjson::SUCCESS &&
      doc["message"].get_string().get(message) == simdjson::SUCCESS) {
    return std::string(message);
  }
  return body.substr(0, 300);
}

// No reply: a certificate the configured CAs do not verify is for an operator to fix; the rest
// (refused, reset, timed out) is retried.
absl::Status StatusOfError(httplib::Error error, std::string_view what) {
  const std::string message =
      fmt::format("schema registry: {}: {}", what, httplib::to_string(error));
  // Not a switch: cpp-httplib adds codes between releases (Debian 12 has 0.11, Debian 13 0.18,
  // which also reports a host name mismatch on its own; that one is retried here).
  if (error == httplib::Error::SSLLoadingCerts || error == httplib::Error::SSLServerVerification) {
    return absl::FailedPreconditionError(fmt::format(
        "{}; set [schema_registry] ca_file to the PEM CA that signs the registry's certificate "
        "(and use the host name the certificate names)",
        message));
  }
  return absl::UnavailableError(message);
}

absl::Status StatusOfReply(const httplib::Result& result, std::string_view what,
                           std::string_view subject) {
  if (!result) return StatusOfError(result.error(), what);
  const int code = result->status;
  if (code >= 200 && code < 300) return absl::OkStatus();
  const std::string message =
      fmt::format("schema registry: {}: HTTP {}: {}", what, code, ErrorMessage(result->body));
  if (code >= 500 || code == 408 || code == 429) return absl::UnavailableError(message);
  switch (code) {
    case 401:
      return absl::UnauthenticatedError(
          fmt::format("{}; fix [schema_registry] username and password", message));
    case 403:
      return absl::PermissionDeniedError(
          fmt::format("{}; grant the user access to subject {}", message, subject));
    case 404:
      return absl::NotFoundError(message);
    case 409:
      return absl::FailedPreconditionError(fmt::format(
          "{}; the schema is incompatible with subject {} under its compatibility level: make "
          "the schema change compatible, or change the subject's level (PUT /config/{}), or "
          "write to a new subject",
          message, subject, subject));
    case 422:
      return absl::InvalidArgumentError(message);
    default:
      return absl::InternalError(message);
  }
}

absl::StatusOr<int64_t> ReadInt(const std::string& body, std::string_view field,
                                std::string_view what) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  int64_t value = 0;
  if (parser.parse(body).get(doc) != simdjson::SUCCESS ||
      doc[field].get_int64().get(value) != simdjson::SUCCESS) {
    return absl::DataLossError(fmt::format("schema registry: {}: no \"{}\" in reply {}", what,
                                           field, body.substr(0, 300)));
  }
  return value;
}

class HttpRegistryClient final : public RegistryClient {
 public:
  HttpRegistryClient(const config::SchemaRegistryConfig& cfg, RegistryUrl url)
      : url_(std::move(url)), client_(url_.origin) {
    const auto timeout = std::chrono::milliseconds(cfg.timeout_ms);
    client_.set_connection_timeout(timeout);
    client_.set_read_timeout(timeout);
    client_.set_write_timeout(timeout);
    client_.set_keep_alive(true);
    if (!cfg.username.empty()) client_.set_basic_auth(cfg.username, cfg.password);
    if (!cfg.ca_file.empty()) client_.set_ca_cert_path(cfg.ca_file);
  }

  absl::StatusOr<int32_t> Register(std::string_view subject, std::string_view schema) override {
    return PostSchema(fmt::format("/subjects/{}/versions", EncodePathSegment(subject)), subject,
                      schema, "register");
  }

  absl::StatusOr<int32_t> Lookup(std::string_view subject, std::string_view schema) override {
    return PostSchema(fmt::format("/subjects/{}", EncodePathSegment(subject)), subject, schema,
                      "look up");
  }

  absl::StatusOr<int32_t> LatestId(std::string_view subject) override {
    const std::string what = fmt::format("latest version of subject {}", subject);
    auto result = client_.Get(
        Path(fmt::format("/subjects/{}/versions/latest", EncodePathSegment(subject))), Headers());
    if (auto s = StatusOfReply(result, what, subject); !s.ok()) return s;
    auto id = ReadInt(result->body, "id", what);
    if (!id.ok()) return id.status();
    return static_cast<int32_t>(*id);
  }

  absl::StatusOr<std::string> Compatibility(std::string_view subject) override {
    const std::string what = fmt::format("compatibility of subject {}", subject);
    auto result = client_.Get(
        Path(subject.empty() ? "/config" : fmt::format("/config/{}", EncodePathSegment(subject))),
        Headers());
    if (result && result->status == 404) result = client_.Get(Path("/config"), Headers());
    if (auto s = StatusOfReply(result, what, subject); !s.ok()) return s;
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    std::string_view level;
    if (parser.parse(result->body).get(doc) != simdjson::SUCCESS ||
        doc["compatibilityLevel"].get_string().get(level) != simdjson::SUCCESS) {
      return absl::DataLossError(
          fmt::format("schema registry: {}: reply {}", what, result->body.substr(0, 300)));
    }
    return std::string(level);
  }

  absl::StatusOr<std::vector<std::string>> Subjects() override {
    auto result = client_.Get(Path("/subjects"), Headers());
    if (auto s = StatusOfReply(result, "list subjects", "*"); !s.ok()) return s;
    simdjson::dom::parser parser;
    simdjson::dom::array array;
    if (parser.parse(result->body).get_array().get(array) != simdjson::SUCCESS) {
      return absl::DataLossError(
          fmt::format("schema registry: list subjects: reply {}", result->body.substr(0, 300)));
    }
    std::vector<std::string> out;
    for (simdjson::dom::element e : array) {
      std::string_view name;
      if (e.get_string().get(name) == simdjson::SUCCESS) out.emplace_back(name);
    }
    return out;
  }

 private:
  std::string Path(std::string_view path) const { return url_.base_path + std::string(path); }
  static httplib::Headers Headers() { return {{"Accept", std::string(kContentType)}}; }

  absl::StatusOr<int32_t> PostSchema(const std::string& path, std::string_view subject,
                                     std::string_view schema, std::string_view verb) {
    std::string body = R"({"schema":)";
    AppendJsonString(body, schema);
    body.push_back('}');
    const std::string what = fmt::format("{} schema under subject {}", verb, subject);
    auto result = client_.Post(Path(path), Headers(), body, std::string(kContentType));
    if (auto s = StatusOfReply(result, what, subject); !s.ok()) return s;
    auto id = ReadInt(result->body, "id", what);
    if (!id.ok()) return id.status();
    return static_cast<int32_t>(*id);
  }

  const RegistryUrl url_;
  httplib::Client client_;
};

}  // namespace

absl::StatusOr<RegistryUrl> ParseRegistryUrl(std::string_view url) {
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos || scheme_end + 3 >= url.size()) {
    return absl::InvalidArgumentError(
        fmt::format("schema registry url \"{}\" has no scheme://host", url));
  }
  const size_t path_start = url.find('/', scheme_end + 3);
  RegistryUrl out;
  out.origin = std::string(url.substr(0, path_start));
  if (path_start != std::string_view::npos) {
    std::string_view path = url.substr(path_start);
    while (!path.empty() && path.back() == '/') path.remove_suffix(1);
    out.base_path = std::string(path);
  }
  return out;
}

std::string EncodePathSegment(std::string_view segment) {
  std::string out;
  for (const char c : segment) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(c);
    } else {
      fmt::format_to(std::back_inserter(out), "%{:02X}", u);
    }
  }
  return out;
}

absl::StatusOr<std::unique_ptr<RegistryClient>> RegistryClient::Create(
    const config::SchemaRegistryConfig& cfg) {
  auto url = ParseRegistryUrl(cfg.url);
  if (!url.ok()) return url.status();
  return std::make_unique<HttpRegistryClient>(cfg, std::move(*url));
}

}  // namespace outboxd::registry
