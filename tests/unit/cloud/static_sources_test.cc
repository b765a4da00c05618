// The environment and shared-file sources, over a fake environment and temporary files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cloud/credential_source.h"
#include "fake_aws_server.h"

namespace outboxd::cloud {
namespace {

using ::testing::AllOf;
using testing::FakeEnv;
using ::testing::HasSubstr;

TEST(EnvironmentSourceTest, ReadsTheThreeVariables) {
  auto source = MakeEnvironmentSource(FakeEnv({{"AWS_ACCESS_KEY_ID", "AKID"},
                                               {"AWS_SECRET_ACCESS_KEY", "s3cr3t"},
                                               {"AWS_SESSION_TOKEN", "tok"}}));
  const auto credentials = source->Fetch();
  ASSERT_TRUE(credentials.ok()) << credentials.status();
  EXPECT_EQ(credentials->access_key_id, "AKID");
  EXPECT_EQ(credentials->secret_access_key, "s3cr3t");
  EXPECT_EQ(credentials->session_token, "tok");
  EXPECT_FALSE(credentials->expiration.has_value());
  EXPECT_EQ(credentials->source, "environment");
}

TEST(EnvironmentSourceTest, IsNotFoundWhenUnsetAndAnErrorWhenHalfSet) {
  EXPECT_TRUE(absl::IsNotFound(MakeEnvironmentSource(FakeEnv({}))->Fetch().status()));
  const auto half = MakeEnvironmentSource(FakeEnv({{"AWS_ACCESS_KEY_ID", "AKID"}}))->Fetch();
  EXPECT_EQ(half.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(half.status().message(),
              AllOf(HasSubstr("AWS_SECRET_ACCESS_KEY is not"), HasSubstr("set both")));
}

class ProfileSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("outboxd-cloud-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_ / ".aws");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / ".aws" / name) << text;
  }
  absl::StatusOr<AwsCredentials> Fetch(std::map<std::string, std::string> vars) {
    vars["HOME"] = dir_.string();
    return MakeProfileSource(FakeEnv(std::move(vars)))->Fetch();
  }

  std::filesystem::path dir_;
};

TEST_F(ProfileSourceTest, ReadsTheNamedProfileFromTheCredentialsFile) {
  Write("credentials",
        "# comment\n[default]\naws_access_key_id = DEFAULTKEY\naws_secret_access_key = d\n\n"
        "[prod]\r\naws_access_key_id=PRODKEY\r\naws_secret_access_key= p \r\n"
        "aws_session_token = ptok\r\n");
  const auto fallback = Fetch({});
  ASSERT_TRUE(fallback.ok()) << fallback.status();
  EXPECT_EQ(fallback->access_key_id, "DEFAULTKEY");
  EXPECT_EQ(fallback->source, "profile:default");
  const auto prod = Fetch({{"AWS_PROFILE", "prod"}});
  ASSERT_TRUE(prod.ok()) << prod.status();
  EXPECT_EQ(prod->access_key_id, "PRODKEY");
  EXPECT_EQ(prod->secret_access_key, "p");
  EXPECT_EQ(prod->session_token, "ptok");
}

TEST_F(ProfileSourceTest, ReadsProfileSectionsOfTheConfigFileAndHonoursFileVariables) {
  Write("other-config", "[profile dev]\naws_access_key_id = DEVKEY\naws_secret_access_key = x\n");
  const auto dev = Fetch(
      {{"AWS_PROFILE", "dev"}, {"AWS_CONFIG_FILE", (dir_ / ".aws" / "other-config").string()}});
  ASSERT_TRUE(dev.ok()) << dev.status();
  EXPECT_EQ(dev->access_key_id, "DEVKEY");
}

TEST_F(ProfileSourceTest, NamesBothFilesWhenAnExplicitProfileIsMissing) {
  Write("credentials", "[default]\naws_access_key_id = K\naws_secret_access_key = S\n");
  const auto missing = Fetch({{"AWS_PROFILE", "typo"}});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(missing.status().message(),
              AllOf(HasSubstr("profile:typo"), HasSubstr(".aws/credentials"),
                    HasSubstr(".aws/config"), HasSubstr("fix the name")));
}

TEST_F(ProfileSourceTest, IsNotFoundWithoutFilesAndRefusesUnsupportedProfiles) {
  EXPECT_TRUE(absl::IsNotFound(Fetch({}).status()));
  Write("config", "[profile assume]\nrole_arn = arn:aws:iam::1:role/r\nsource_profile = default\n");
  const auto assume = Fetch({{"AWS_PROFILE", "assume"}});
  EXPECT_EQ(assume.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(assume.status().message(), AllOf(HasSubstr("role_arn"), HasSubstr("not support")));
}

}  // namespace
}  // namespace outboxd::cloud
