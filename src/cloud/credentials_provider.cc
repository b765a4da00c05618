#include "cloud/credentials_provider.h"

#include "cloud/aws_encoding.h"
#include "common/log.h"
#include "common/status.h"
#include "common/strings.h"

namespace outboxd::cloud {
namespace {

using std::chrono::system_clock;

constexpr auto kRefreshMargin = std::chrono::minutes(5);
// After a failed refresh with valid credentials in hand, the next attempt waits this long (or
// half the time left, if less), so a broken source is not called on every token.
constexpr auto kRetryAfterFailure = std::chrono::seconds(30);

std::string FormatTime(system_clock::time_point time) { return Iso8601(time); }

}  // namespace

system_clock::time_point RefreshTime(system_clock::time_point fetched,
                                     system_clock::time_point expiration) {
  const auto lifetime = expiration - fetched;
  return expiration - std::min<system_clock::duration>(kRefreshMargin, lifetime / 2);
}

AwsCredentialsProvider::AwsCredentialsProvider(
    std::vector<std::unique_ptr<CredentialSource>> sources, WallClock clock)
    : sources_(std::move(sources)), clock_(std::move(clock)) {}

std::vector<std::string> AwsCredentialsProvider::SearchOrder() const {
  std::vector<std::string> names;
  for (const auto& source : sources_) names.push_back(source->Name());
  return names;
}

std::string AwsCredentialsProvider::ActiveSource() const {
  absl::MutexLock lock(&mu_);
  return active_ < 0 ? std::string() : sources_[active_]->Name();
}

absl::StatusOr<AwsCredentials> AwsCredentialsProvider::Get() {
  absl::MutexLock lock(&mu_);
  const auto now = clock_();
  if (cached_ && now < refresh_at_) return *cached_;
  if (active_ < 0) return Resolve();
  return Refresh(now);
}

void AwsCredentialsProvider::Remember(AwsCredentials credentials, system_clock::time_point now) {
  refresh_at_ = credentials.expiration ? RefreshTime(now, *credentials.expiration)
                                       : system_clock::time_point::max();
  cached_ = std::move(credentials);
}

absl::StatusOr<AwsCredentials> AwsCredentialsProvider::Resolve() {
  std::string tried;
  for (size_t i = 0; i < sources_.size(); ++i) {
    auto credentials = sources_[i]->Fetch();
    if (absl::IsNotFound(credentials.status())) {
      tried += Concat(tried.empty() ? "" : "; ", MessageOf(credentials.status()));
      continue;
    }
    if (!credentials.ok()) {
      return Annotate(credentials.status(), "AWS credentials");
    }
    active_ = static_cast<int>(i);
    credentials->source = sources_[i]->Name();
    log::Info("AWS credentials: using {} (key id {}, {})", credentials->source,
              credentials->access_key_id,
              credentials->expiration ? Concat("expire ", FormatTime(*credentials->expiration))
                                      : std::string("no expiry"));
    Remember(*credentials, clock_());
    return credentials;
  }
  return absl::FailedPreconditionError(Concat(
      "no AWS credentials found (tried ", tried,
      "); set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, or run with a role "
      "(EKS IRSA or Pod Identity, ECS task role, EC2 instance profile)"));
}

absl::StatusOr<AwsCredentials> AwsCredentialsProvider::Refresh(system_clock::time_point now) {
  CredentialSource& source = *sources_[active_];
  auto fresh = source.Fetch();
  if (fresh.ok()) {
    fresh->source = source.Name();
    log::Info("AWS credentials: refreshed from {}{}", fresh->source,
              fresh->expiration ? Concat(", expire ", FormatTime(*fresh->expiration)) : "");
    Remember(*fresh, now);
    return fresh;
  }
  if (absl::IsNotFound(fresh.status())) {  // The source went away (e.g. a variable unset).
    active_ = -1;
    cached_.reset();
    return Resolve();
  }
  if (cached_ && (!cached_->expiration || now < *cached_->expiration)) {
    const auto left =
        cached_->expiration ? *cached_->expiration - now : system_clock::duration::max();
    refresh_at_ = now + std::min<system_clock::duration>(kRetryAfterFailure, left / 2);
    log::Warn("AWS credentials: refreshing from {} failed, still using the current ones{}: {}",
              source.Name(),
              cached_->expiration ? Concat(" until ", FormatTime(*cached_->expiration)) : "",
              MessageOf(fresh.status()));
    return *cached_;
  }
  return Annotate(fresh.status(),
                  Concat("AWS credentials from ", source.Name(),
                         cached_ ? Concat(" expired at ", FormatTime(*cached_->expiration)) : "",
                         " and could not be fetched again"));
}

std::unique_ptr<AwsCredentialsProvider> MakeDefaultCredentialsProvider() {
  const WallClock clock = SystemWallClock();
  return std::make_unique<AwsCredentialsProvider>(DefaultSources(ProcessEnv(), clock), clock);
}

}  // namespace outboxd::cloud
