#pragma once
// The AWS credentials chain as the SDKs run it: the first source that is configured wins and
// stays in use; its credentials are cached and fetched again before they expire, without a
// restart. The source in use is named in logs, errors and `check`; no secret ever is.

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "cloud/credential_source.h"

namespace outboxd::cloud {

// When credentials fetched at `fetched` that expire at `expiration` are fetched again: five
// minutes before they expire, or halfway through a lifetime shorter than ten minutes.
std::chrono::system_clock::time_point RefreshTime(std::chrono::system_clock::time_point fetched,
                                                  std::chrono::system_clock::time_point expiration);

class AwsCredentialsProvider {
 public:
  // `sources` in search order (DefaultSources for the SDKs' order); `clock` gives wall time.
  AwsCredentialsProvider(std::vector<std::unique_ptr<CredentialSource>> sources, WallClock clock);
  AwsCredentialsProvider(const AwsCredentialsProvider&) = delete;
  AwsCredentialsProvider& operator=(const AwsCredentialsProvider&) = delete;

  // Valid credentials: the cached ones, or fresh ones once the refresh time has passed. A
  // failed refresh keeps serving cached credentials that have not expired yet (and logs it).
  // Errors name the source and the fix. Thread-safe; may block on HTTP while holding the lock
  // (callers: librdkafka's token refresh, each Postgres connection attempt).
  absl::StatusOr<AwsCredentials> Get() ABSL_LOCKS_EXCLUDED(mu_);

  // The name of the source in use ("" before one was found). Thread-safe.
  std::string ActiveSource() const ABSL_LOCKS_EXCLUDED(mu_);
  // The names of all sources in search order, for `check`.
  std::vector<std::string> SearchOrder() const;

 private:
  absl::StatusOr<AwsCredentials> Resolve() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<AwsCredentials> Refresh(std::chrono::system_clock::time_point now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Remember(AwsCredentials credentials, std::chrono::system_clock::time_point now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::vector<std::unique_ptr<CredentialSource>> sources_;
  const WallClock clock_;
  mutable absl::Mutex mu_;
  int active_ ABSL_GUARDED_BY(mu_) = -1;  // Index into sources_; -1 before one was found.
  std::optional<AwsCredentials> cached_ ABSL_GUARDED_BY(mu_);
  std::chrono::system_clock::time_point refresh_at_ ABSL_GUARDED_BY(mu_);
};

// The provider over DefaultSources(ProcessEnv(), SystemWallClock()).
std::unique_ptr<AwsCredentialsProvider> MakeDefaultCredentialsProvider();

}  // namespace outboxd::cloud
