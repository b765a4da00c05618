// The chain's order, its caching and refresh before expiry, on scripted sources and a fake
// clock; and credentials rotating under it on a fake IMDS.
#include "cloud/credentials_provider.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <deque>

#include "fake_aws_server.h"

namespace outboxd::cloud {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using Time = std::chrono::system_clock::time_point;

const Time kStart = Time(seconds(1796666400));  // 2026-12-07T18:00:00Z

// A source answering from a script, one entry per Fetch (the last entry repeats).
class ScriptedSource final : public CredentialSource {
 public:
  ScriptedSource(std::string name, std::deque<absl::StatusOr<AwsCredentials>> answers, int* calls)
      : name_(std::move(name)), answers_(std::move(answers)), calls_(calls) {}
  std::string Name() const override { return name_; }
  absl::StatusOr<AwsCredentials> Fetch() override {
    ++*calls_;
    auto answer = answers_.front();
    if (answers_.size() > 1) answers_.pop_front();
    return answer;
  }

 private:
  std::string name_;
  std::deque<absl::StatusOr<AwsCredentials>> answers_;
  int* calls_;
};

AwsCredentials Keys(std::string key, std::optional<Time> expiration) {
  return {std::move(key), "SECRET-" + key, "", expiration, ""};
}

class CredentialsProviderTest : public ::testing::Test {
 protected:
  void Add(std::string name, std::deque<absl::StatusOr<AwsCredentials>> answers) {
    calls_.push_back(std::make_unique<int>(0));
    sources_.push_back(
        std::make_unique<ScriptedSource>(std::move(name), std::move(answers), calls_.back().get()));
  }
  std::unique_ptr<AwsCredentialsProvider> Make() {
    return std::make_unique<AwsCredentialsProvider>(std::move(sources_), [this] { return now_; });
  }

  Time now_ = kStart;
  std::vector<std::unique_ptr<CredentialSource>> sources_;
  std::vector<std::unique_ptr<int>> calls_;
};

TEST(RefreshTimeTest, FiveMinutesBeforeExpiryOrHalfwayForShortLifetimes) {
  EXPECT_EQ(RefreshTime(kStart, kStart + minutes(60)), kStart + minutes(55));
  EXPECT_EQ(RefreshTime(kStart, kStart + minutes(6)), kStart + minutes(3));
  EXPECT_EQ(RefreshTime(kStart, kStart + seconds(20)), kStart + seconds(10));
}

TEST_F(CredentialsProviderTest, TheFirstConfiguredSourceWinsAndStaysInUse) {
  Add("environment", {absl::NotFoundError("environment: AWS_ACCESS_KEY_ID is not set")});
  Add("imds", {Keys("IMDS1", kStart + minutes(60))});
  Add("never", {Keys("NEVER", std::nullopt)});
  auto provider = Make();
  EXPECT_THAT(provider->SearchOrder(), ElementsAre("environment", "imds", "never"));
  EXPECT_EQ(provider->ActiveSource(), "");
  const auto credentials = provider->Get();
  ASSERT_TRUE(credentials.ok()) << credentials.status();
  EXPECT_EQ(credentials->access_key_id, "IMDS1");
  EXPECT_EQ(credentials->source, "imds");
  EXPECT_EQ(provider->ActiveSource(), "imds");
  EXPECT_EQ(*calls_[2], 0);
}

TEST_F(CredentialsProviderTest, CachesUntilTheRefreshTimeThenFetchesAgain) {
  Add("imds", {Keys("K1", kStart + minutes(60)), Keys("K2", kStart + minutes(120))});
  auto provider = Make();
  ASSERT_EQ(provider->Get()->access_key_id, "K1");
  now_ = kStart + minutes(54);
  EXPECT_EQ(provider->Get()->access_key_id, "K1");
  EXPECT_EQ(*calls_[0], 1);
  now_ = kStart + minutes(55);
  EXPECT_EQ(provider->Get()->access_key_id, "K2");
  EXPECT_EQ(*calls_[0], 2);
}

TEST_F(CredentialsProviderTest, KeepsValidCredentialsWhenARefreshFailsThenNamesTheSource) {
  Add("container", {Keys("K1", kStart + minutes(10)),
                    absl::UnavailableError("container: the credentials endpoint did not answer")});
  auto provider = Make();
  ASSERT_TRUE(provider->Get().ok());
  now_ = kStart + minutes(6);  // Past the refresh time (5 minutes: halfway), before expiry.
  const auto kept = provider->Get();
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(kept->access_key_id, "K1");
  now_ = kStart + minutes(6) + seconds(10);  // Within the retry pause: no new call.
  EXPECT_TRUE(provider->Get().ok());
  EXPECT_EQ(*calls_[0], 2);
  now_ = kStart + minutes(11);
  const auto expired = provider->Get();
  EXPECT_TRUE(absl::IsUnavailable(expired.status()));
  EXPECT_THAT(expired.status().message(),
              AllOf(HasSubstr("AWS credentials from container expired at 2026-12-07T18:10:00Z"),
                    HasSubstr("did not answer"), Not(HasSubstr("SECRET"))));
}

TEST_F(CredentialsProviderTest, NoSourceListsWhatWasTriedAndTheFix) {
  Add("environment", {absl::NotFoundError("environment: AWS_ACCESS_KEY_ID is not set")});
  Add("imds", {absl::NotFoundError("imds: AWS_EC2_METADATA_DISABLED=true")});
  const auto none = Make()->Get();
  EXPECT_EQ(none.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(none.status().message(),
              AllOf(HasSubstr("no AWS credentials found (tried environment: AWS_ACCESS_KEY_ID is "
                              "not set; imds: AWS_EC2_METADATA_DISABLED=true)"),
                    HasSubstr("AWS_PROFILE"), HasSubstr("instance profile")));
}

TEST_F(CredentialsProviderTest, ASourceFailureStopsTheChainWithItsName) {
  Add("web-identity", {absl::PermissionDeniedError("web-identity: STS refused")});
  Add("imds", {Keys("IMDS", std::nullopt)});
  const auto refused = Make()->Get();
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(refused.status().message(), HasSubstr("AWS credentials: web-identity: STS refused"));
  EXPECT_EQ(*calls_[1], 0);
}

TEST(CredentialsProviderRotationTest, FollowsCredentialsRotatingOnAFakeImds) {
  testing::FakeAwsServer imds;
  int served = 0;
  imds.server().Put("/latest/api/token",
                    [](const auto&, auto& response) { response.set_content("t", "text/plain"); });
  imds.server().Get("/latest/meta-data/iam/security-credentials/", [](const auto&, auto& response) {
    response.set_content("role", "text/plain");
  });
  imds.server().Get(
      "/latest/meta-data/iam/security-credentials/role", [&served](const auto&, auto& response) {
        ++served;  // Each answer expires 15 minutes after 18:00 + 15 min * n.
        const std::string expiry = served == 1 ? "2026-12-07T18:15:00Z" : "2026-12-07T18:30:00Z";
        response.set_content(testing::CredentialsJson("ROT" + std::to_string(served), expiry),
                             "application/json");
      });
  imds.Start();
  Time now = kStart;
  const auto env = testing::FakeEnv({{"AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.url()}});
  const WallClock clock = [&now] { return now; };
  AwsCredentialsProvider provider(DefaultSources(env, clock), clock);
  const auto first = provider.Get();
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->access_key_id, "ROT1");
  EXPECT_EQ(provider.ActiveSource(), "imds");
  now = kStart + minutes(9);
  EXPECT_EQ(provider.Get()->access_key_id, "ROT1");
  now = kStart + minutes(10);  // 5 minutes before 18:15.
  EXPECT_EQ(provider.Get()->access_key_id, "ROT2");
  EXPECT_EQ(served, 2);
}

}  // namespace
}  // namespace outboxd::cloud
