// IMDSv2 and container credentials against small real HTTP servers on loopback.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "cloud/aws_encoding.h"
#include "cloud/credential_source.h"
#include "fake_aws_server.h"

namespace outboxd::cloud {
namespace {

using ::testing::AllOf;
using testing::CredentialsJson;
using testing::FakeAwsServer;
using testing::FakeEnv;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kImdsToken[] = "imds-session-token";

// IMDSv2 as EC2 serves it: every metadata GET needs the session token from the PUT.
class FakeImds {
 public:
  explicit FakeImds(std::string role = "relay-role") {
    server_.server().Put("/latest/api/token", [this](const auto& request, auto& response) {
      ttl_header_ = request.get_header_value("X-aws-ec2-metadata-token-ttl-seconds");
      response.set_content(kImdsToken, "text/plain");
    });
    const auto authorized = [](const httplib::Request& request, httplib::Response& response) {
      if (request.get_header_value("X-aws-ec2-metadata-token") == kImdsToken) return true;
      response.status = 401;
      return false;
    };
    const std::string base = "/latest/meta-data/iam/security-credentials/";
    server_.server().Get(base, [=](const auto& request, auto& response) {
      if (authorized(request, response)) response.set_content(role + "\n", "text/plain");
    });
    server_.server().Get(base + role, [=, this](const auto& request, auto& response) {
      if (!authorized(request, response)) return;
      const int n = ++fetches_;
      response.set_content(CredentialsJson("IMDSKEY" + std::to_string(n), "2026-12-07T19:00:00Z"),
                           "application/json");
    });
    server_.Start();
  }
  std::string url() const { return server_.url(); }
  int fetches() const { return fetches_; }
  std::string ttl_header() const { return ttl_header_; }

 private:
  FakeAwsServer server_;
  std::atomic<int> fetches_{0};
  std::string ttl_header_;
};

TEST(ImdsSourceTest, FetchesTheRoleCredentialsWithASessionToken) {
  FakeImds imds;
  auto source = MakeImdsSource(FakeEnv({{"AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.url() + "/"}}));
  const auto credentials = source->Fetch();
  ASSERT_TRUE(credentials.ok()) << credentials.status();
  EXPECT_EQ(credentials->access_key_id, "IMDSKEY1");
  EXPECT_EQ(credentials->secret_access_key, "secret-IMDSKEY1");
  EXPECT_EQ(credentials->session_token, "token-IMDSKEY1");
  EXPECT_EQ(Iso8601(*credentials->expiration), "2026-12-07T19:00:00Z");
  EXPECT_EQ(imds.ttl_header(), "21600");
  EXPECT_EQ(source->Name(), "imds");
}

TEST(ImdsSourceTest, DisabledIsNotFoundAndAnUnansweringEndpointSetOnPurposeIsAnError) {
  EXPECT_TRUE(absl::IsNotFound(
      MakeImdsSource(FakeEnv({{"AWS_EC2_METADATA_DISABLED", "true"}}))->Fetch().status()));
  std::string dead_url;
  {
    FakeAwsServer dead;
    dead.Start();
    dead_url = dead.url();
  }  // Stopped: its port refuses connections now.
  const auto refused =
      MakeImdsSource(FakeEnv({{"AWS_EC2_METADATA_SERVICE_ENDPOINT", dead_url}}))->Fetch();
  EXPECT_TRUE(absl::IsUnavailable(refused.status())) << refused.status();
  EXPECT_THAT(refused.status().message(), HasSubstr("imds: no answer for the session token"));
}

TEST(ImdsSourceTest, AnInstanceWithoutARoleNamesTheFix) {
  FakeAwsServer server;
  server.server().Put("/latest/api/token",
                      [](const auto&, auto& response) { response.set_content("t", "text/plain"); });
  server.Start();  // Every GET is a 404.
  const auto credentials =
      MakeImdsSource(FakeEnv({{"AWS_EC2_METADATA_SERVICE_ENDPOINT", server.url()}}))->Fetch();
  EXPECT_EQ(credentials.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(credentials.status().message(), HasSubstr("attach an instance profile"));
}

class ContainerSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.server().Get("/v1/credentials", [this](const auto& request, auto& response) {
      authorization_ = request.get_header_value("Authorization");
      if (authorization_ != "Bearer pod-token") {
        response.status = 403;
        return;
      }
      response.set_content(CredentialsJson("PODKEY", "2026-12-07T18:30:00Z"), "application/json");
    });
    server_.Start();
    token_file_ = std::filesystem::temp_directory_path() /
                  ("outboxd-pod-token-" + std::to_string(::getpid()));
    std::ofstream(token_file_) << "Bearer pod-token\n";
  }
  void TearDown() override { std::filesystem::remove(token_file_); }

  FakeAwsServer server_;
  std::filesystem::path token_file_;
  std::string authorization_;
};

TEST_F(ContainerSourceTest, FullUriWithTheTokenFileAsEksPodIdentitySetsIt) {
  auto source = MakeContainerSource(
      FakeEnv({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", server_.url() + "/v1/credentials"},
               {"AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", token_file_.string()},
               {"AWS_CONTAINER_AUTHORIZATION_TOKEN", "ignored: the file wins"}}));
  const auto credentials = source->Fetch();
  ASSERT_TRUE(credentials.ok()) << credentials.status();
  EXPECT_EQ(credentials->access_key_id, "PODKEY");
  EXPECT_EQ(credentials->source, "container");
  EXPECT_EQ(authorization_, "Bearer pod-token");
}

TEST_F(ContainerSourceTest, RelativeUriUnderTheAgentAddressWithTheTokenVariable) {
  auto source =
      MakeContainerSource(FakeEnv({{"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "/v1/credentials"},
                                   {"AWS_CONTAINER_AUTHORIZATION_TOKEN", "Bearer pod-token"}}),
                          server_.url());
  const auto credentials = source->Fetch();
  ASSERT_TRUE(credentials.ok()) << credentials.status();
  EXPECT_EQ(credentials->secret_access_key, "secret-PODKEY");
}

TEST_F(ContainerSourceTest, ErrorsNameTheVariableAndNeverTheToken) {
  const auto unreadable =
      MakeContainerSource(
          FakeEnv({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", server_.url() + "/v1/credentials"},
                   {"AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", "/nonexistent/token"}}))
          ->Fetch();
  EXPECT_EQ(unreadable.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(unreadable.status().message(),
              AllOf(HasSubstr("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE /nonexistent/token"),
                    HasSubstr("No such file")));
  const auto refused =
      MakeContainerSource(
          FakeEnv({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", server_.url() + "/v1/credentials"},
                   {"AWS_CONTAINER_AUTHORIZATION_TOKEN", "Bearer wrong-secret"}}))
          ->Fetch();
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(refused.status().message(),
              AllOf(HasSubstr("HTTP 403"), Not(HasSubstr("wrong-secret"))));
  const auto plain =
      MakeContainerSource(
          FakeEnv({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://203.0.113.9/creds"}}))
          ->Fetch();
  EXPECT_EQ(plain.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(plain.status().message(), HasSubstr("use https"));
  EXPECT_TRUE(absl::IsNotFound(MakeContainerSource(FakeEnv({}))->Fetch().status()));
}

}  // namespace
}  // namespace outboxd::cloud
