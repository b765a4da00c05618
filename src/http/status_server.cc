#include "http/status_server.h"

#include <netdb.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "common/host_port.h"
#include "common/status.h"
#include "fmt/format.h"
#include "http/health_json.h"
#include "httplib.h"

namespace outboxd::http {
namespace {

// Scrapes and probes are tiny; two workers serve a Prometheus and a kubelet at once.
constexpr size_t kWorkerThreads = 2;
constexpr auto kStartTimeout = std::chrono::seconds(5);

// SO_REUSEADDR only: a restart may bind over TIME_WAIT, but unlike httplib's default
// (SO_REUSEPORT) a second outboxd cannot silently share the port with a live one.
void ReuseAddressOnly(int sock) {
  int yes = 1;
  ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
}

std::string BindFix(int error) {
  switch (error) {
    case EADDRINUSE:
      return "another process listens there; stop it or choose another port in [http] listen";
    case EADDRNOTAVAIL:
      return "the address is not one of this machine's; use 127.0.0.1, 0.0.0.0 or a local "
             "interface address in [http] listen";
    case EACCES:
      return "ports below 1024 need privileges; choose a port above 1023 in [http] listen";
    default:
      return "check [http] listen";
  }
}

// Resolving first tells an unknown name (a config mistake) from an address that cannot be
// bound (a runtime condition); httplib reports both as a plain failure.
absl::Status CheckResolves(const std::string& host, std::string_view listen) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* result = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &result);
  if (result != nullptr) ::freeaddrinfo(result);
  if (rc == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      fmt::format("[http] listen \"{}\": cannot resolve host \"{}\": {}; use an IP address such as "
                  "127.0.0.1 or a name the machine resolves",
                  listen, host, ::gai_strerror(rc)));
}

}  // namespace

StatusServer::StatusServer(const metrics::RelayMetrics& metrics, const metrics::Health& health,
                           metrics::BuildInfo build)
    : metrics_(metrics), health_(health), build_(std::move(build)) {}

StatusServer::~StatusServer() { Stop(); }

void StatusServer::Route() {
  server_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    const metrics::Health::Snapshot health = health_.Read();
    res.set_content(metrics::RenderPrometheus(metrics_, build_, &health),
                    fmt::format("{}; charset=utf-8", metrics::kPrometheusContentType));
  });
  server_->Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
    const std::chrono::duration<double> uptime = std::chrono::steady_clock::now() - started_;
    res.set_content(HealthzBody(build_.version, uptime.count()), "application/json");
  });
  server_->Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
    const metrics::Health::Snapshot health = health_.Read();
    res.status = health.Ready() ? 200 : 503;
    res.set_content(ReadyzBody(health), "application/json");
  });
}

absl::Status StatusServer::Bind(const std::string& host, int port, std::string_view listen) {
  errno = 0;
  const int bound =
      port == 0 ? server_->bind_to_any_port(host) : (server_->bind_to_port(host, port) ? port : -1);
  const int error = errno;
  if (bound > 0) {
    port_ = bound;
    return absl::OkStatus();
  }
  return absl::UnavailableError(fmt::format("[http] listen \"{}\": cannot listen: {}; {}", listen,
                                            error != 0 ? std::strerror(error) : "bind failed",
                                            BindFix(error)));
}

absl::Status StatusServer::Start(std::string_view listen) {
  if (server_ != nullptr) {
    return absl::FailedPreconditionError("the HTTP status server is already started");
  }
  absl::StatusOr<HostPort> address = ParseHostPort(listen);
  if (!address.ok()) {
    return absl::InvalidArgumentError(fmt::format("[http] {}", MessageOf(address.status())));
  }
  if (auto s = CheckResolves(address->host, listen); !s.ok()) return s;
  server_ = std::make_unique<httplib::Server>();
  server_->new_task_queue = [] { return new httplib::ThreadPool(kWorkerThreads); };
  server_->set_socket_options(ReuseAddressOnly);
  server_->set_keep_alive_timeout(1);
  server_->set_read_timeout(2);
  server_->set_write_timeout(2);
  Route();
  if (auto s = Bind(address->host, address->port, listen); !s.ok()) {
    server_.reset();
    return s;
  }
  listen_returned_ = false;
  thread_ = std::thread([this] {
    server_->listen_after_bind();
    listen_returned_ = true;
  });
  // httplib's stop() is a no-op until the listen loop runs; wait for it so Stop() cannot
  // race past a server that has not started yet.
  const auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
  while (!server_->is_running() && !listen_returned_ &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (server_->is_running()) return absl::OkStatus();
  Stop();
  return absl::UnavailableError(fmt::format(
      "[http] listen \"{}\": the HTTP server did not start serving; check the logs", listen));
}

void StatusServer::Stop() {
  if (server_ == nullptr) return;
  if (thread_.joinable()) {
    // httplib's stop() does nothing until its listen loop has started; repeat it until the
    // loop has returned rather than trust that it had started.
    while (!listen_returned_) {
      server_->stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    thread_.join();
  }
  server_.reset();
  port_ = 0;
}

}  // namespace outboxd::http
