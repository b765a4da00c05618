#pragma once
// A throwaway Postgres cluster of its own (scripts/pg start DIR), for faults that must not
// touch the shared one: a wal_level change, a scram-only pg_hba.conf, a tiny WAL budget.

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace outboxd::faults {

class DedicatedCluster {
 public:
  // Starts a fresh cluster under a new temporary directory with `scripts_dir`/pg; stops it and
  // deletes the directory on destruction. Takes a few seconds (initdb). `initdb_args` are
  // extra initdb options (e.g. "--wal-segsize=1" for 1 MB WAL segments).
  static absl::StatusOr<std::unique_ptr<DedicatedCluster>> Start(
      const std::string& scripts_dir, const std::string& initdb_args = "");
  // As Start, with PostgreSQL major `version` ("17"; scripts/pg-binaries fetches it) instead of
  // OUTBOXD_PG_VERSION's.
  static absl::StatusOr<std::unique_ptr<DedicatedCluster>> StartVersion(
      const std::string& scripts_dir, const std::string& version);
  // A hot standby of `primary` (scripts/pg standby: pg_basebackup over a physical slot; on 17+
  // it synchronizes failover slots), started. `primary` must outlive it.
  static absl::StatusOr<std::unique_ptr<DedicatedCluster>> StartStandby(
      const DedicatedCluster& primary);
  ~DedicatedCluster();
  DedicatedCluster(const DedicatedCluster&) = delete;
  DedicatedCluster& operator=(const DedicatedCluster&) = delete;

  const std::string& conninfo() const { return conninfo_; }              // role outboxd, db app
  const std::string& admin_conninfo() const { return admin_conninfo_; }  // superuser, db app
  std::string data_dir() const { return dir_ + "/pg/data"; }
  std::string server_log() const { return dir_ + "/pg/postgres.log"; }

  // scripts/pg restart-immediate: picks up ALTER SYSTEM settings that need a restart.
  absl::Status RestartImmediate();
  // scripts/pg promote: the standby becomes a primary (a new timeline).
  absl::Status Promote();
  // scripts/pg stop (fast shutdown).
  absl::Status Stop();
  // Replaces pg_hba.conf with `contents` and reloads the configuration.
  absl::Status ReplaceHba(const std::string& contents);

 private:
  DedicatedCluster(std::string scripts_dir, std::string dir)
      : scripts_dir_(std::move(scripts_dir)), dir_(std::move(dir)) {}
  static absl::StatusOr<std::unique_ptr<DedicatedCluster>> NewDir(const std::string& scripts_dir);
  absl::Status RunPgScript(const std::string& command);
  absl::Status ReadEnv();

  std::string scripts_dir_;
  std::string dir_;
  std::string conninfo_;
  std::string admin_conninfo_;
  std::string initdb_args_;
  std::string version_;  // Empty: OUTBOXD_PG_VERSION's (or Debian's 15).
};

}  // namespace outboxd::faults
