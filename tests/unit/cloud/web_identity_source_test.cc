// STS AssumeRoleWithWebIdentity against a fake STS on loopback (AWS_ENDPOINT_URL_STS).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cloud/aws_encoding.h"
#include "cloud/credential_source.h"
#include "fake_aws_server.h"

namespace outboxd::cloud {
namespace {

using ::testing::AllOf;
using testing::FakeAwsServer;
using testing::FakeEnv;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kStsAnswer[] =
    R"(<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleWithWebIdentityResult>
    <SubjectFromWebIdentityToken>system:serviceaccount:app:outboxd</SubjectFromWebIdentityToken>
    <Credentials>
      <SessionToken>FwoGZXIvY&amp;XdzEXAMPLE</SessionToken>
      <SecretAccessKey>wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY</SecretAccessKey>
      <Expiration>2026-12-07T19:00:00Z</Expiration>
      <AccessKeyId>ASIAEXAMPLE</AccessKeyId>
    </Credentials>
  </AssumeRoleWithWebIdentityResult>
</AssumeRoleWithWebIdentityResponse>)";

constexpr char kStsError[] = R"(<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <Error><Type>Sender</Type><Code>InvalidIdentityToken</Code>
  <Message>Incorrect token audience</Message></Error>
  <RequestId>c6104cbe-af31-11e0-8154-cbc7ccf896c7</RequestId>
</ErrorResponse>)";

class WebIdentitySourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sts_.server().Post("/", [this](const httplib::Request& request, httplib::Response& response) {
      params_ = request.params;
      if (request.get_param_value("WebIdentityToken") != "eyJ.jwt.sig") {
        response.status = 400;
        response.set_content(kStsError, "text/xml");
        return;
      }
      response.set_content(kStsAnswer, "text/xml");
    });
    sts_.Start();
    token_file_ =
        std::filesystem::temp_directory_path() / ("outboxd-irsa-" + std::to_string(::getpid()));
    std::ofstream(token_file_) << "eyJ.jwt.sig\n";
  }
  void TearDown() override { std::filesystem::remove(token_file_); }

  std::map<std::string, std::string> Env() {
    return {{"AWS_WEB_IDENTITY_TOKEN_FILE", token_file_.string()},
            {"AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/outboxd"},
            {"AWS_ENDPOINT_URL_STS", sts_.url()}};
  }
  absl::StatusOr<AwsCredentials> Fetch(std::map<std::string, std::string> env) {
    return MakeWebIdentitySource(
               FakeEnv(std::move(env)),
               [] {
                 return std::chrono::system_clock::time_point(std::chrono::seconds(1796666400));
               })
        ->Fetch();
  }

  FakeAwsServer sts_;
  std::filesystem::path token_file_;
  httplib::Params params_;
};

TEST_F(WebIdentitySourceTest, AssumesTheRoleWithTheTokenFromTheFile) {
  const auto credentials = Fetch(Env());
  ASSERT_TRUE(credentials.ok()) << credentials.status();
  EXPECT_EQ(credentials->access_key_id, "ASIAEXAMPLE");
  EXPECT_EQ(credentials->secret_access_key, "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");
  EXPECT_EQ(credentials->session_token, "FwoGZXIvY&XdzEXAMPLE");  // &amp; unescaped.
  EXPECT_EQ(Iso8601(*credentials->expiration), "2026-12-07T19:00:00Z");
  EXPECT_EQ(credentials->source, "web-identity");
  const auto param = [&](const char* name) {
    const auto found = params_.find(name);
    return found == params_.end() ? std::string("<missing>") : found->second;
  };
  EXPECT_EQ(param("Action"), "AssumeRoleWithWebIdentity");
  EXPECT_EQ(param("Version"), "2011-06-15");
  EXPECT_EQ(param("RoleArn"), "arn:aws:iam::123456789012:role/outboxd");
  EXPECT_EQ(param("RoleSessionName"), "outboxd-1796666400");
}

TEST_F(WebIdentitySourceTest, AnStsRefusalNamesTheCodeAndTheFixButNotTheToken) {
  std::ofstream(token_file_) << "eyJ.wrong-audience.sig";
  auto env = Env();
  env.erase("AWS_ENDPOINT_URL_STS");
  env["AWS_ENDPOINT_URL"] = sts_.url();  // The general override works too.
  const auto refused = Fetch(env);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(refused.status().message(),
              AllOf(HasSubstr("InvalidIdentityToken: Incorrect token audience (HTTP 400)"),
                    HasSubstr("arn:aws:iam::123456789012:role/outboxd"), HasSubstr("trust policy"),
                    Not(HasSubstr("wrong-audience"))));
}

TEST_F(WebIdentitySourceTest, ConfigurationMistakesNameTheVariable) {
  EXPECT_TRUE(absl::IsNotFound(Fetch({}).status()));
  auto env = Env();
  env.erase("AWS_ROLE_ARN");
  EXPECT_THAT(Fetch(env).status().message(), HasSubstr("AWS_ROLE_ARN is not"));
  env = Env();
  env["AWS_WEB_IDENTITY_TOKEN_FILE"] = "/nonexistent/token";
  const auto unreadable = Fetch(env);
  EXPECT_EQ(unreadable.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(unreadable.status().message(),
              AllOf(HasSubstr("cannot read AWS_WEB_IDENTITY_TOKEN_FILE /nonexistent/token"),
                    HasSubstr("No such file")));
}

TEST_F(WebIdentitySourceTest, AMalformedAnswerIsDataLossWithoutQuotingIt) {
  FakeAwsServer broken;
  broken.server().Post("/", [](const auto&, auto& response) {
    response.set_content(
        "<Credentials><AccessKeyId>ASIA</AccessKeyId><SecretAccessKey>"
        "leaky</SecretAccessKey></Credentials>",
        "text/xml");
  });
  broken.Start();
  auto env = Env();
  env["AWS_ENDPOINT_URL_STS"] = broken.url();
  const auto answer = Fetch(env);
  EXPECT_EQ(answer.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(answer.status().message(),
              AllOf(HasSubstr("<SessionToken>"), Not(HasSubstr("leaky"))));
}

}  // namespace
}  // namespace outboxd::cloud
