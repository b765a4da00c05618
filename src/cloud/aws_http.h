#pragma once
// The few HTTP calls the credential sources make (IMDS, container endpoint, STS), over
// cpp-httplib, with short timeouts: a source that is not there must not stall start-up.
// Blocking; safe from any thread (each call has its own connection).

#include <chrono>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "cloud/sigv4.h"

namespace outboxd::cloud {

struct Url {
  std::string scheme;  // "http" or "https".
  std::string host;    // Without brackets for an IPv6 literal.
  int port = 0;
  std::string path_and_query;  // "/" at least.
};

// Parses "http[s]://host[:port][/path][?query]". InvalidArgument naming `what` (the variable
// or option it came from) otherwise.
absl::StatusOr<Url> ParseUrl(std::string_view text, std::string_view what);

struct HttpCall {
  std::string method = "GET";  // GET, PUT or POST.
  std::string url;
  NameValues headers;
  std::string body;
  std::string content_type;  // For a body.
  std::chrono::milliseconds timeout{2000};
};

struct HttpAnswer {
  int status = 0;
  std::string body;
};

// Sends `call`. Unavailable when nothing answers (connection refused, timeout); any HTTP status
// is an answer, for the caller to judge. Messages name the URL, never a header value.
absl::StatusOr<HttpAnswer> SendHttp(const HttpCall& call);

}  // namespace outboxd::cloud
