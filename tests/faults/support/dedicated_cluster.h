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
  ~DedicatedCluster();
  DedicatedCluster(const DedicatedCluster&) = delete;
  DedicatedCluster& operator=(const DedicatedCluster&) = delete;

  const std::string& conninfo() const { return conninfo_; }              // role outboxd, db app
  const std::string& admin_conninfo() const { return admin_conninfo_; }  // superuser, db app
  std::string data_dir() const { return dir_ + "/pg/data"; }
  std::string server_log() const { return dir_ + "/pg/postgres.log"; }

  // scripts/pg restart-immediate: picks up ALTER SYSTEM settings that need a restart.
  absl::Status RestartImmediate();
  // Replaces pg_hba.conf with `contents` and reloads the configuration.
  absl::Status ReplaceHba(const std::string& contents);

 private:
  DedicatedCluster(std::string scripts_dir, std::string dir)
      : scripts_dir_(std::move(scripts_dir)), dir_(std::move(dir)) {}
  absl::Status RunPgScript(const std::string& command);
  absl::Status ReadEnv();

  std::string scripts_dir_;
  std::string dir_;
  std::string conninfo_;
  std::string admin_conninfo_;
  std::string initdb_args_;
};

}  // namespace outboxd::faults
