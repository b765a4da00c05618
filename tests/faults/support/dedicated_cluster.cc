#include "support/dedicated_cluster.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "harness/log_tail.h"
#include "harness/pg_client.h"

namespace outboxd::faults {
namespace {

// The value of `export NAME="value"` or `export NAME=value` in `line`, if it sets `name`.
std::optional<std::string> ExportValue(const std::string& line, const std::string& name) {
  const std::string prefix = absl::StrCat("export ", name, "=");
  if (line.rfind(prefix, 0) != 0) return std::nullopt;
  std::string value = line.substr(prefix.size());
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
    value = value.substr(1, value.size() - 2);
  }
  return value;
}

}  // namespace

absl::StatusOr<std::unique_ptr<DedicatedCluster>> DedicatedCluster::NewDir(
    const std::string& scripts_dir) {
  char pattern[] = "/tmp/outboxd-faults-pg-XXXXXX";
  if (::mkdtemp(pattern) == nullptr) return absl::InternalError("mkdtemp failed");
  ::chmod(pattern, 0755);  // The postgres user (when root) must reach DIR/pg.
  return std::unique_ptr<DedicatedCluster>(new DedicatedCluster(scripts_dir, pattern));
}

absl::StatusOr<std::unique_ptr<DedicatedCluster>> DedicatedCluster::Start(
    const std::string& scripts_dir, const std::string& initdb_args) {
  auto cluster = NewDir(scripts_dir);
  if (!cluster.ok()) return cluster.status();
  (*cluster)->initdb_args_ = initdb_args;
  if (auto s = (*cluster)->RunPgScript("start"); !s.ok()) return s;
  if (auto s = (*cluster)->ReadEnv(); !s.ok()) return s;
  return cluster;
}

absl::StatusOr<std::unique_ptr<DedicatedCluster>> DedicatedCluster::StartVersion(
    const std::string& scripts_dir, const std::string& version) {
  auto cluster = NewDir(scripts_dir);
  if (!cluster.ok()) return cluster.status();
  (*cluster)->version_ = version;
  if (auto s = (*cluster)->RunPgScript("start"); !s.ok()) return s;
  if (auto s = (*cluster)->ReadEnv(); !s.ok()) return s;
  return cluster;
}

absl::StatusOr<std::unique_ptr<DedicatedCluster>> DedicatedCluster::StartStandby(
    const DedicatedCluster& primary) {
  auto cluster = NewDir(primary.scripts_dir_);
  if (!cluster.ok()) return cluster.status();
  (*cluster)->version_ = primary.version_;
  if (auto s = (*cluster)->RunPgScript(absl::StrCat("standby '", primary.dir_, "'")); !s.ok()) {
    return s;
  }
  if (auto s = (*cluster)->ReadEnv(); !s.ok()) return s;
  return cluster;
}

absl::Status DedicatedCluster::Promote() { return RunPgScript("promote"); }

absl::Status DedicatedCluster::Stop() { return RunPgScript("stop"); }

DedicatedCluster::~DedicatedCluster() {
  RunPgScript("stop").IgnoreError();
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

absl::Status DedicatedCluster::RunPgScript(const std::string& command) {
  const std::string log = dir_ + "/pg-script.log";
  const std::string version =
      version_.empty() ? "" : absl::StrCat("OUTBOXD_PG_VERSION='", version_, "' ");
  const std::string line =
      absl::StrCat(version, "OUTBOXD_PG_INITDB_ARGS='", initdb_args_, "' '", scripts_dir_, "/pg' ",
                   command, " '", dir_, "' >>'", log, "' 2>&1");
  if (std::system(line.c_str()) != 0) {
    return absl::InternalError(
        absl::StrCat("scripts/pg ", command, " ", dir_, " failed:\n", it::LogTail(log, 30)));
  }
  return absl::OkStatus();
}

absl::Status DedicatedCluster::ReadEnv() {
  std::ifstream env(dir_ + "/pg.env");
  std::string line;
  while (std::getline(env, line)) {
    if (auto v = ExportValue(line, "OUTBOXD_TEST_PG_CONNINFO")) conninfo_ = *v;
    if (auto v = ExportValue(line, "OUTBOXD_TEST_PG_ADMIN_CONNINFO")) admin_conninfo_ = *v;
  }
  if (conninfo_.empty() || admin_conninfo_.empty()) {
    return absl::InternalError(absl::StrCat("no conninfo in ", dir_, "/pg.env"));
  }
  return absl::OkStatus();
}

absl::Status DedicatedCluster::RestartImmediate() { return RunPgScript("restart-immediate"); }

absl::Status DedicatedCluster::ReplaceHba(const std::string& contents) {
  {
    std::ofstream hba(data_dir() + "/pg_hba.conf", std::ios::trunc);
    hba << contents;
    if (!hba) return absl::InternalError("cannot write pg_hba.conf");
  }
  absl::StatusOr<it::PgClient> admin = it::PgClient::Connect(admin_conninfo_);
  if (!admin.ok()) return admin.status();
  return admin->Exec("SELECT pg_reload_conf()");
}

}  // namespace outboxd::faults
