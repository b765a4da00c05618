// RegistryClient against an in-process HTTP server playing Confluent's REST API on a free
// loopback port: paths, content type, basic auth, and how each reply becomes a Status.

#include "registry/registry_client.h"

#include <httplib.h>
#include <stdlib.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "gtest/gtest.h"

namespace outboxd::registry {
namespace {

class FakeServer {
 public:
  FakeServer() {
    server_.Post(R"(/ccompat/subjects/([^/]+)/versions)", [this](const httplib::Request& req,
                                                                 httplib::Response& res) {
      last_body = req.body;
      last_auth = req.get_header_value("Authorization");
      last_content_type = req.get_header_value("Content-Type");
      last_subject = req.matches[1];
      if (last_subject == "incompatible-value") {
        res.status = 409;
        res.set_content(R"({"error_code":409,"message":"Schema being registered is incompatible"})",
                        "application/json");
        return;
      }
      if (last_subject == "secret-value") {
        res.status = 401;
        return;
      }
      res.set_content(R"({"id":17})", "application/json");
    });
    server_.Get(R"(/ccompat/subjects/([^/]+)/versions/latest)",
                [](const httplib::Request&, httplib::Response& res) {
                  res.set_content(R"({"subject":"s","version":3,"id":9,"schema":"\"string\""})",
                                  "application/json");
                });
    server_.Get(R"(/ccompat/config/([^/]+))", [](const httplib::Request&, httplib::Response& res) {
      res.status = 404;
      res.set_content(R"({"error_code":40401,"message":"Subject not found"})", "application/json");
    });
    server_.Get("/ccompat/config", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"compatibilityLevel":"BACKWARD"})", "application/json");
    });
    port = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeServer() {
    server_.stop();
    thread_.join();
  }

  int port = 0;
  std::string last_body, last_auth, last_content_type, last_subject;

 private:
  httplib::Server server_;
  std::thread thread_;
};

std::unique_ptr<RegistryClient> ClientFor(int port, std::string user = "", std::string pass = "") {
  config::SchemaRegistryConfig cfg;
  cfg.url = "http://127.0.0.1:" + std::to_string(port) + "/ccompat/";
  cfg.username = std::move(user);
  cfg.password = std::move(pass);
  cfg.timeout_ms = 2000;
  return std::move(*RegistryClient::Create(cfg));
}

TEST(RegistryUrlTest, SplitsOriginAndBasePath) {
  auto url = ParseRegistryUrl("https://reg.example:8443/apis/ccompat/v7/");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->origin, "https://reg.example:8443");
  EXPECT_EQ(url->base_path, "/apis/ccompat/v7");
  EXPECT_EQ(ParseRegistryUrl("http://h:1")->base_path, "");
  EXPECT_FALSE(ParseRegistryUrl("h:1").ok());
  EXPECT_EQ(EncodePathSegment("outbox.event.Order Line/x-value"),
            "outbox.event.Order%20Line%2Fx-value");
}

TEST(RegistryClientTest, RegisterPostsTheSchemaAsAJsonStringWithBasicAuth) {
  FakeServer server;
  auto client = ClientFor(server.port, "user", "p@ss");
  auto id = client->Register("outbox.event.Order-value", R"(["null","string"])");
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_EQ(*id, 17);
  EXPECT_EQ(server.last_subject, "outbox.event.Order-value");
  EXPECT_EQ(server.last_body, R"({"schema":"[\"null\",\"string\"]"})");
  EXPECT_EQ(server.last_content_type, "application/vnd.schemaregistry.v1+json");
  EXPECT_EQ(server.last_auth, "Basic dXNlcjpwQHNz");  // base64("user:p@ss")
}

TEST(RegistryClientTest, RepliesBecomeStatuses) {
  FakeServer server;
  auto client = ClientFor(server.port);
  absl::StatusOr<int32_t> refused = client->Register("incompatible-value", "\"string\"");
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.status().message().find("incompatible-value"), std::string::npos);
  EXPECT_NE(refused.status().message().find("Schema being registered is incompatible"),
            std::string::npos);
  EXPECT_EQ(client->Register("secret-value", "\"string\"").status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(*client->LatestId("s-value"), 9);
  EXPECT_EQ(*client->Compatibility("s-value"), "BACKWARD");  // Global, the subject has none.
}

TEST(RegistryClientTest, NothingListeningIsUnavailable) {
  int port = 0;
  {
    FakeServer server;
    port = server.port;
  }
  EXPECT_EQ(ClientFor(port)->Register("t-value", "\"string\"").status().code(),
            absl::StatusCode::kUnavailable);
}

// HTTPS with a throwaway self-signed certificate (openssl, from scripts/setup): verified with
// ca_file, and refused without it as an operator error, not a retry.
TEST(RegistryClientTest, HttpsVerifiesTheRegistryWithCaFile) {
  char dir_template[] = "/tmp/outboxd-registry-tls.XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  const std::string cert = dir + "/cert.pem", key = dir + "/key.pem";
  const std::string command =
      "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 -addext "
      "subjectAltName=IP:127.0.0.1 -keyout " +
      key + " -out " + cert + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  httplib::SSLServer server(cert.c_str(), key.c_str());
  server.Post(R"(/subjects/([^/]+)/versions)",
              [](const httplib::Request& req, httplib::Response& res) {
                res.set_content(req.has_header("Authorization") ? R"({"id":5})" : R"({"id":0})",
                                "application/json");
              });
  const int port = server.bind_to_any_port("127.0.0.1");
  std::thread thread([&] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  config::SchemaRegistryConfig cfg;
  cfg.url = "https://127.0.0.1:" + std::to_string(port);
  cfg.username = "u";
  cfg.password = "p";
  cfg.timeout_ms = 2000;
  cfg.ca_file = cert;
  EXPECT_EQ(*(*RegistryClient::Create(cfg))->Register("t-value", "\"string\""), 5);
  cfg.ca_file = "";  // The system's CAs do not sign it.
  absl::StatusOr<int32_t> refused =
      (*RegistryClient::Create(cfg))->Register("t-value", "\"string\"");
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition) << refused.status();
  EXPECT_NE(refused.status().message().find("ca_file"), std::string::npos);
  server.stop();
  thread.join();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace outboxd::registry
