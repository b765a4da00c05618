#pragma once
// A real HTTP server on 127.0.0.1 and a free port, standing in for IMDS, a container
// credentials agent or STS in tests. Handlers run on the server's own threads.

#include <httplib.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <thread>

#include "cloud/credential_source.h"

namespace outboxd::cloud::testing {

class FakeAwsServer {
 public:
  FakeAwsServer() = default;
  FakeAwsServer(const FakeAwsServer&) = delete;
  FakeAwsServer& operator=(const FakeAwsServer&) = delete;
  ~FakeAwsServer() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }

  httplib::Server& server() { return server_; }

  // Binds and starts serving; call after registering handlers.
  void Start() {
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // The socket already listens; wait for the loop too, or an early stop() would be lost.
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

// An EnvLookup over a fixed map, the test's whole environment.
inline EnvLookup FakeEnv(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    const auto found = vars.find(std::string(name));
    if (found == vars.end() || found->second.empty()) return std::nullopt;
    return found->second;
  };
}

// A JSON credentials document as IMDS and the container agents answer.
inline std::string CredentialsJson(const std::string& key, const std::string& expiration) {
  return R"({"Code":"Success","Type":"AWS-HMAC","AccessKeyId":")" + key +
         R"(","SecretAccessKey":"secret-)" + key + R"(","Token":"token-)" + key +
         R"(","Expiration":")" + expiration + R"("})";
}

}  // namespace outboxd::cloud::testing
