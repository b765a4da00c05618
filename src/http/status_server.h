#pragma once
// The HTTP side of operating outboxd: /metrics (Prometheus text), /healthz (alive) and
// /readyz (streaming, producer and slot ok), served by cpp-httplib on threads of its own.
// Handlers only read: metric values are atomics and the health state is copied under its
// short lock, so the relay loop never waits on a scrape.

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "absl/status/status.h"
#include "metrics/health.h"
#include "metrics/metrics.h"
#include "metrics/prometheus_text.h"

namespace httplib {
class Server;
}  // namespace httplib

namespace outboxd::http {

class StatusServer {
 public:
  // `metrics` and `health` must outlive the server.
  StatusServer(const metrics::RelayMetrics& metrics, const metrics::Health& health,
               metrics::BuildInfo build);
  ~StatusServer();  // Stops the server if it runs.
  StatusServer(const StatusServer&) = delete;
  StatusServer& operator=(const StatusServer&) = delete;

  // Binds `listen` ("host:port", "[ipv6]:port"; port 0 picks a free one, see port()) and
  // serves on a new thread until Stop(). Returns InvalidArgument for a malformed or
  // unresolvable address, Unavailable when it cannot be bound (in use, not local, privileged),
  // FailedPrecondition when already started. Call on the main thread after blocking the
  // signals the loop reads from a signalfd: the server's threads inherit the signal mask.
  absl::Status Start(std::string_view listen);

  // The bound port once Start() succeeded, 0 before.
  int port() const { return port_; }

  // Stops accepting, finishes the requests in progress and joins the server's threads; an
  // idle keep-alive connection delays it by at most a second. Idempotent.
  void Stop();

 private:
  void Route();
  absl::Status Bind(const std::string& host, int port, std::string_view listen);

  const metrics::RelayMetrics& metrics_;
  const metrics::Health& health_;
  const metrics::BuildInfo build_;
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  std::atomic<bool> listen_returned_{false};
  int port_ = 0;
};

}  // namespace outboxd::http
