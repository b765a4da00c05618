#include "cloud/aws_http.h"

#include <httplib.h>

#include "common/strings.h"

namespace outboxd::cloud {

absl::StatusOr<Url> ParseUrl(std::string_view text, std::string_view what) {
  const auto invalid = [&](std::string_view why) {
    return absl::InvalidArgumentError(Concat(what, ": \"", text, "\" is not a URL (", why,
                                             "); write http[s]://host[:port]/path"));
  };
  Url url;
  const size_t scheme_end = text.find("://");
  if (scheme_end == std::string_view::npos) return invalid("no scheme");
  url.scheme = std::string(text.substr(0, scheme_end));
  if (url.scheme != "http" && url.scheme != "https") return invalid("scheme is not http or https");
  std::string_view rest = text.substr(scheme_end + 3);
  const size_t path_start = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, path_start);
  if (path_start == std::string_view::npos) {
    url.path_and_query.push_back('/');  // Not = "/": GCC 12's bogus -Wrestrict (PR 105329).
  } else if (rest[path_start] == '?') {
    url.path_and_query = Concat("/", rest.substr(path_start));
  } else {
    url.path_and_query = std::string(rest.substr(path_start));
  }
  url.port = url.scheme == "https" ? 443 : 80;
  std::string_view port_text;
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return invalid("unclosed '['");
    url.host = std::string(authority.substr(1, close - 1));
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return invalid("text after ']'");
      port_text = authority.substr(close + 2);
    }
  } else {
    const size_t colon = authority.rfind(':');
    url.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  if (url.host.empty()) return invalid("no host");
  if (!port_text.empty() || authority.ends_with(':')) {
    const auto port = ParseInt<int>(port_text);
    if (!port || *port <= 0 || *port > 65535) return invalid("bad port");
    url.port = *port;
  }
  return url;
}

absl::StatusOr<HttpAnswer> SendHttp(const HttpCall& call) {
  auto url = ParseUrl(call.url, "URL");
  if (!url.ok()) return url.status();
  const std::string host =
      url->host.find(':') != std::string::npos ? Concat("[", url->host, "]") : url->host;
  httplib::Client client(Concat(url->scheme, "://", host, ":", url->port));
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(call.timeout);
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(call.timeout - seconds);
  client.set_connection_timeout(seconds.count(), micros.count());
  client.set_read_timeout(seconds.count(), micros.count());
  client.set_write_timeout(seconds.count(), micros.count());
  httplib::Headers headers;
  for (const auto& [name, value] : call.headers) headers.emplace(name, value);
  if (call.method != "GET" && call.method != "PUT" && call.method != "POST") {
    return absl::InvalidArgumentError(Concat("HTTP method ", call.method, " is not supported"));
  }
  httplib::Result result =
      call.method == "GET" ? client.Get(url->path_and_query, headers)
      : call.method == "PUT"
          ? client.Put(url->path_and_query, headers, call.body, call.content_type)
          : client.Post(url->path_and_query, headers, call.body, call.content_type);
  if (!result) {
    return absl::UnavailableError(
        Concat(call.method, " ", url->scheme, "://", host, ":", url->port,
               url->path_and_query.substr(0, url->path_and_query.find('?')), ": ",
               httplib::to_string(result.error())));
  }
  return HttpAnswer{result->status, result->body};
}

}  // namespace outboxd::cloud
