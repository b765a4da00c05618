#include "daemon/cloud_auth.h"

#include "cloud/aws_encoding.h"
#include "cloud/msk_token.h"
#include "cloud/rds_token.h"
#include "common/log.h"
#include "common/status.h"
#include "common/strings.h"
#include "fmt/format.h"
#include "kafka/oauthbearer.h"
#include "pg/connect_password.h"

namespace outboxd::daemon {
namespace {

using std::chrono::system_clock;

// The MSK token lives 15 minutes, but no longer than the credentials that signed it.
absl::StatusOr<kafka::BearerToken> MskToken(cloud::AwsCredentialsProvider& provider,
                                            const std::string& region,
                                            const std::string& user_agent) {
  auto credentials = provider.Get();
  if (!credentials.ok()) return credentials.status();
  auto token = cloud::MakeMskToken(*credentials, region, system_clock::now(), user_agent);
  if (!token.ok()) return token.status();
  system_clock::time_point expiration = token->expiration;
  if (credentials->expiration) expiration = std::min(expiration, *credentials->expiration);
  log::Debug("MSK IAM token made with credentials from {}, valid until {}", credentials->source,
             cloud::Iso8601(expiration));
  return kafka::BearerToken{std::move(token->value), expiration, "outboxd"};
}

absl::StatusOr<std::string> RdsPassword(cloud::AwsCredentialsProvider& provider,
                                        const std::string& region,
                                        const pg::ConnectTarget& target) {
  auto credentials = provider.Get();
  if (!credentials.ok()) return credentials.status();
  return cloud::MakeRdsAuthToken(*credentials, {target.host, target.port, target.user, region},
                                 system_clock::now());
}

std::string Describe(const cloud::AwsCredentialsProvider& provider) {
  return fmt::format("search order {}", fmt::join(provider.SearchOrder(), ", "));
}

}  // namespace

bool UsesAwsIam(const config::Config& config) {
  return config.kafka_iam.aws_msk_iam || config.postgres.iam_auth == config::IamAuth::kAwsRds;
}

absl::Status InstallAwsIam(const config::Config& config, cloud::AwsCredentialsProvider& credentials,
                           std::string user_agent) {
  if (config.postgres.iam_auth == config::IamAuth::kAwsRds) {
    const std::string& conninfo = config.postgres.conninfo;
    if (auto s = pg::RequireVerifyFull(conninfo); !s.ok()) return s;
    if (auto target = pg::ResolveTarget(conninfo); !target.ok()) return target.status();
    pg::SetPasswordHook(
        [&credentials, region = config.postgres.aws_region](const pg::ConnectTarget& target) {
          return RdsPassword(credentials, region, target);
        });
    log::Info("Postgres: RDS IAM authentication in {}, a fresh token per connection ({})",
              config.postgres.aws_region, Describe(credentials));
  }
  if (config.kafka_iam.aws_msk_iam) {
    kafka::SetTokenHook(
        [&credentials, region = config.kafka_iam.aws_region, user_agent = std::move(user_agent)] {
          return MskToken(credentials, region, user_agent);
        });
    log::Info("Kafka: MSK IAM authentication in {} ({})", config.kafka_iam.aws_region,
              Describe(credentials));
  }
  return absl::OkStatus();
}

CheckResults CheckAwsIam(const config::Config& config, cloud::AwsCredentialsProvider& credentials) {
  CheckResults results;
  if (!UsesAwsIam(config)) return results;
  auto found = credentials.Get();
  if (!found.ok()) {
    results.push_back(Fail("aws credentials", std::string(MessageOf(found.status())),
                           "see docs/security.md (AWS IAM)", /*permission=*/true));
    return results;
  }
  results.push_back(
      Pass("aws credentials",
           Concat("from ", found->source, " (", Describe(credentials), "), key id ",
                  found->access_key_id,
                  found->expiration ? Concat(", expire ", cloud::Iso8601(*found->expiration))
                                    : std::string(", no expiry"))));
  if (config.postgres.iam_auth == config::IamAuth::kAwsRds) {
    const std::string& conninfo = config.postgres.conninfo;
    absl::Status usable = pg::RequireVerifyFull(conninfo);
    auto target = pg::ResolveTarget(conninfo);
    if (usable.ok() && !target.ok()) usable = target.status();
    if (usable.ok()) {
      usable = RdsPassword(credentials, config.postgres.aws_region, *target).status();
    }
    if (!usable.ok()) {
      results.push_back(Fail("postgres iam_auth", std::string(MessageOf(usable)), ""));
    } else {
      results.push_back(
          Pass("postgres iam_auth", Concat("aws_rds in ", config.postgres.aws_region, " for ",
                                           target->user, "@", target->host, ":", target->port,
                                           ", sslmode=verify-full; token made, a fresh one per "
                                           "connection")));
    }
  }
  if (config.kafka_iam.aws_msk_iam) {
    auto token = MskToken(credentials, config.kafka_iam.aws_region, "outboxd check");
    if (!token.ok()) {
      results.push_back(
          Fail("kafka sasl.oauthbearer.method", std::string(MessageOf(token.status())), ""));
    } else {
      results.push_back(Pass(
          "kafka sasl.oauthbearer.method",
          Concat("aws_msk_iam in ", config.kafka_iam.aws_region, "; token made, valid until ",
                 cloud::Iso8601(token->expiration), ", refreshed by librdkafka before expiry")));
    }
  }
  return results;
}

}  // namespace outboxd::daemon
