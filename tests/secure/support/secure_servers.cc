#include "support/secure_servers.h"

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "harness/log_tail.h"

namespace outboxd::secure {
namespace {

// NAME and value of an `export NAME="value"` (or unquoted) line; nullopt for other lines.
std::optional<std::pair<std::string, std::string>> ParseExport(const std::string& line) {
  constexpr std::string_view kExport = "export ";
  if (line.rfind(kExport, 0) != 0) return std::nullopt;
  const size_t eq = line.find('=');
  if (eq == std::string::npos) return std::nullopt;
  std::string value = line.substr(eq + 1);
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
    value = value.substr(1, value.size() - 2);
  }
  return std::make_pair(line.substr(kExport.size(), eq - kExport.size()), value);
}

absl::Status RunShell(const std::string& command, const std::string& log) {
  const std::string line = absl::StrCat(command, " >>'", log, "' 2>&1");
  if (std::system(line.c_str()) != 0) {
    return absl::InternalError(absl::StrCat(command, " failed:\n", it::LogTail(log, 40)));
  }
  return absl::OkStatus();
}

// One lazily started server per kind, stopped by the environment below when the binary ends.
struct Slot {
  std::unique_ptr<ScriptedServer> server;
  std::optional<absl::Status> failed;
};

absl::StatusOr<ScriptedServer*> StartOnce(Slot& slot, const std::string& scripts_dir,
                                          const std::string& script, const std::string& env_prefix,
                                          const std::string& env_file) {
  if (slot.server != nullptr) return slot.server.get();
  if (slot.failed) return *slot.failed;
  absl::StatusOr<std::unique_ptr<ScriptedServer>> started =
      ScriptedServer::Start(scripts_dir, script, env_prefix, env_file);
  if (!started.ok()) {
    slot.failed = started.status();
    return started.status();
  }
  slot.server = std::move(*started);
  return slot.server.get();
}

Slot& PostgresSlot() {
  static Slot slot;
  return slot;
}
Slot& KafkaSlot() {
  static Slot slot;
  return slot;
}

class StopServers : public ::testing::Environment {
 public:
  void TearDown() override {
    KafkaSlot().server.reset();
    PostgresSlot().server.reset();
  }
};
[[maybe_unused]] ::testing::Environment* const kStopServers =
    ::testing::AddGlobalTestEnvironment(new StopServers);

}  // namespace

absl::StatusOr<std::unique_ptr<ScriptedServer>> ScriptedServer::Start(
    const std::string& scripts_dir, const std::string& script, const std::string& env_prefix,
    const std::string& env_file) {
  char pattern[] = "/tmp/outboxd-secure-XXXXXX";
  if (::mkdtemp(pattern) == nullptr) return absl::InternalError("mkdtemp failed");
  // The postgres user must be able to reach DIR/pg (mkdtemp makes it 0700).
  std::filesystem::permissions(pattern, std::filesystem::perms(0755));
  std::unique_ptr<ScriptedServer> server(
      new ScriptedServer(absl::StrCat(scripts_dir, "/", script), pattern));
  const std::string log = absl::StrCat(server->dir_, "/", script, "-script.log");
  absl::Status started = RunShell(
      absl::StrCat(env_prefix, " '", server->script_path_, "' start '", server->dir_, "'"), log);
  if (!started.ok()) return started;
  std::ifstream env(absl::StrCat(server->dir_, "/", env_file));
  std::string line;
  while (std::getline(env, line)) {
    if (auto entry = ParseExport(line)) server->env_.insert(std::move(*entry));
  }
  if (server->env_.empty()) {
    return absl::InternalError(absl::StrCat("no exports in ", server->dir_, "/", env_file));
  }
  return server;
}

ScriptedServer::~ScriptedServer() {
  RunShell(absl::StrCat("'", script_path_, "' stop '", dir_, "'"), "/dev/null").IgnoreError();
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::string ScriptedServer::Get(const std::string& name) const {
  auto it = env_.find(name);
  return it == env_.end() ? "" : it->second;
}

absl::StatusOr<ScriptedServer*> TlsPostgres(const std::string& scripts_dir) {
  return StartOnce(PostgresSlot(), scripts_dir, "pg", "OUTBOXD_PG_TLS=1", "pg.env");
}

absl::StatusOr<ScriptedServer*> ScramKafka(const std::string& scripts_dir) {
  return StartOnce(KafkaSlot(), scripts_dir, "kafka", "OUTBOXD_KAFKA_SECURE=1", "kafka.env");
}

absl::StatusOr<std::string> MakeOtherCa(const std::string& scripts_dir, const std::string& dir) {
  const std::string log = absl::StrCat(dir, ".log");
  absl::Status made = RunShell(absl::StrCat("'", scripts_dir, "/test-ca' '", dir, "'"), log);
  if (!made.ok()) return made;
  return absl::StrCat(dir, "/ca.crt");
}

}  // namespace outboxd::secure
