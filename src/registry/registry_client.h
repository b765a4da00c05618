#pragma once
// A client of the Confluent-compatible schema registry REST API (Confluent Schema Registry,
// Apicurio Registry's /apis/ccompat/v7) over cpp-httplib: HTTP or HTTPS, optional basic auth.
// Each call is one blocking request bounded by SchemaRegistryConfig::timeout_ms.
//
// Errors: Unavailable when the registry cannot be reached or answers 5xx (retry later);
// Unauthenticated (401) and PermissionDenied (403); FailedPrecondition for a schema refused as
// incompatible (409), naming the subject and the fix; NotFound (404: no such subject, version
// or schema); InvalidArgument for a schema refused as invalid (422); DataLoss for a reply that
// is not the API's JSON.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "config/config.h"

namespace outboxd::registry {

class RegistryClient {
 public:
  // InvalidArgument when cfg.url cannot be parsed. No request is made.
  static absl::StatusOr<std::unique_ptr<RegistryClient>> Create(
      const config::SchemaRegistryConfig& cfg);
  virtual ~RegistryClient() = default;

  // POST /subjects/<subject>/versions: registers `schema` (Avro JSON) under `subject`, or finds
  // it registered; the schema's global id.
  virtual absl::StatusOr<int32_t> Register(std::string_view subject, std::string_view schema) = 0;
  // POST /subjects/<subject>: the id of `schema` if `subject` holds it (NotFound otherwise).
  virtual absl::StatusOr<int32_t> Lookup(std::string_view subject, std::string_view schema) = 0;
  // GET /subjects/<subject>/versions/latest: the id of the subject's latest schema.
  virtual absl::StatusOr<int32_t> LatestId(std::string_view subject) = 0;
  // GET /config/<subject> (falling back to the global /config; "" = the global one): the
  // compatibility level, e.g. "BACKWARD".
  virtual absl::StatusOr<std::string> Compatibility(std::string_view subject) = 0;
  // GET /subjects: the registered subjects (reachability and credentials).
  virtual absl::StatusOr<std::vector<std::string>> Subjects() = 0;
};

// Where a URL's parts go: "https://host:8081/apis/ccompat/v7" = scheme+host+port
// "https://host:8081" and base path "/apis/ccompat/v7". InvalidArgument when it has no host.
struct RegistryUrl {
  std::string origin;
  std::string base_path;  // No trailing '/'; "" for the root.
};
absl::StatusOr<RegistryUrl> ParseRegistryUrl(std::string_view url);

// The subject's segment of a path, percent-encoded (RFC 3986 unreserved kept).
std::string EncodePathSegment(std::string_view segment);

}  // namespace outboxd::registry
