#include "support/faults_fixture.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>

#include "absl/strings/str_cat.h"
#include "harness/config_writer.h"
#include "harness/log_tail.h"
#include "harness/outbox_writer.h"
#include "harness/slot.h"
#include "harness/status_macros.h"
#include "harness/wait.h"

namespace outboxd::faults {

void FaultsTest::SetUp() {
  it::OutboxdTest::SetUp();
  if (HasFatalFailure()) return;
  dlq_topic_ = Topic("dlq");
  log_dir_ = (std::filesystem::path(env().log_dir) / UniqueName("faults")).string();
  std::error_code ec;
  std::filesystem::create_directories(log_dir_, ec);
  ASSERT_FALSE(ec) << "cannot create " << log_dir_ << ": " << ec.message();
}

void FaultsTest::TearDown() {
  if (HasFailure()) {
    for (const auto& p : processes_) {
      std::cerr << "---- last 60 lines of " << p->log_path() << " ----\n"
                << it::LogTail(p->log_path(), 60) << "\n---- end of log ----\n";
    }
  }
  processes_.clear();  // SIGKILL whatever still runs, before the slot is dropped.
  it::OutboxdTest::TearDown();
}

std::string FaultsTest::ConfigText(const std::vector<std::string>& postgres_lines,
                                   const std::vector<std::string>& outbox_lines) {
  std::string text = it::RenderConfig(config());
  std::string extra_postgres;
  for (const std::string& line : postgres_lines) absl::StrAppend(&extra_postgres, line, "\n");
  const std::string header = "[postgres]\n";
  const size_t at = text.find(header);
  if (at != std::string::npos) text.insert(at + header.size(), extra_postgres);
  // RenderConfig ends with the [outbox] table, so appended keys belong to it.
  absl::StrAppend(&text, "dead_letter_topic = \"", dlq_topic_, "\"\n");
  for (const std::string& line : outbox_lines) absl::StrAppend(&text, line, "\n");
  return text;
}

absl::StatusOr<it::OutboxdProcess*> FaultsTest::Launch(const std::string& config_text) {
  const size_t n = processes_.size() + 1;
  const std::string config_path = absl::StrCat(log_dir_, "/outboxd-", n, ".toml");
  {
    std::ofstream file(config_path, std::ios::trunc);
    file << config_text;
    if (!file) return absl::InternalError(absl::StrCat("cannot write ", config_path));
  }
  const std::string log_path = absl::StrCat(log_dir_, "/outboxd-", n, ".log");
  IT_ASSIGN_OR_RETURN(std::unique_ptr<it::OutboxdProcess> process,
                      it::OutboxdProcess::Start(env().outboxd_binary, config_path, log_path));
  processes_.push_back(std::move(process));
  return processes_.back().get();
}

absl::StatusOr<it::OutboxdProcess*> FaultsTest::LaunchStreaming(const std::string& config_text,
                                                                absl::Duration timeout) {
  IT_ASSIGN_OR_RETURN(it::OutboxdProcess * process, Launch(config_text));
  const absl::Status ready =
      it::WaitForSlotStreaming(pg(), config().slot, config().publication, timeout);
  if (!ready.ok()) {
    return absl::Status(ready.code(), absl::StrCat(ready.message(), "; outboxd's log:\n",
                                                   it::LogTail(process->log_path(), 40)));
  }
  return process;
}

absl::StatusOr<Ended> FaultsTest::RunUntilExit(const std::string& config_text,
                                               absl::Duration timeout) {
  IT_ASSIGN_OR_RETURN(it::OutboxdProcess * process, Launch(config_text));
  absl::StatusOr<it::ExitStatus> exit = process->WaitForExit(timeout);
  std::string log = it::LogTail(process->log_path(), 200);
  if (!exit.ok()) {
    return absl::DeadlineExceededError(absl::StrCat(
        "outboxd still runs after ", absl::FormatDuration(timeout), "; its log:\n", log));
  }
  return Ended{*exit, std::move(log)};
}

std::string FaultsTest::ExpectExit(const std::string& config_text, int code) {
  absl::StatusOr<Ended> ended = RunUntilExit(config_text, absl::Seconds(60));
  if (!ended.ok()) {
    ADD_FAILURE() << ended.status();
    return "";
  }
  EXPECT_EQ(ended->status.code, code) << ended->status.ToString() << "\n" << ended->log;
  std::cout << "[outboxd said] " << ended->log << "\n";
  return ended->log;
}

absl::Status FaultsTest::WaitForConfirmed(int64_t position, absl::Duration timeout) {
  return it::WaitUntilOk(
      [&]() -> absl::StatusOr<bool> {
        IT_ASSIGN_OR_RETURN(std::optional<int64_t> confirmed,
                            it::SlotConfirmedPosition(pg(), config().slot));
        return confirmed.has_value() && *confirmed >= position;
      },
      timeout, absl::StrCat("slot ", config().slot, " to confirm ", it::FormatLsn(position)));
}

std::unique_ptr<DedicatedCluster> FaultsTest::NewCluster() {
  absl::StatusOr<std::unique_ptr<DedicatedCluster>> cluster =
      DedicatedCluster::Start(env().scripts_dir);
  if (!cluster.ok()) {
    ADD_FAILURE() << cluster.status();
    return nullptr;
  }
  absl::StatusOr<it::PgClient> pg = it::PgClient::Connect((*cluster)->conninfo());
  if (!pg.ok()) {
    ADD_FAILURE() << pg.status();
    return nullptr;
  }
  const absl::Status created = it::CreateOutboxTable(*pg, table());
  EXPECT_TRUE(created.ok()) << created;
  config().pg_conninfo = (*cluster)->conninfo();
  return std::move(*cluster);
}

absl::Status InvalidateSlot(it::PgClient& admin, const std::string& slot) {
  IT_RETURN_IF_ERROR(admin.Exec("ALTER SYSTEM SET max_slot_wal_keep_size = '1MB'"));
  IT_RETURN_IF_ERROR(admin.Exec("SELECT pg_reload_conf()"));
  IT_RETURN_IF_ERROR(admin.Exec(absl::StrCat("SELECT pg_create_logical_replication_slot(",
                                             it::QuoteLiteral(slot), ", 'pgoutput')")));
  // WAL beyond the budget while the slot is inactive; a checkpoint then invalidates it.
  IT_RETURN_IF_ERROR(admin.Exec("CREATE TABLE IF NOT EXISTS wal_filler (n int, pad text)"));
  return it::WaitUntilOk(
      [&]() -> absl::StatusOr<bool> {
        IT_RETURN_IF_ERROR(admin.Exec(
            "INSERT INTO wal_filler SELECT g, repeat('x', 200) FROM generate_series(1, 20000) g; "
            "SELECT pg_switch_wal(); CHECKPOINT"));
        IT_ASSIGN_OR_RETURN(std::optional<std::string> status,
                            admin.QueryOptional("SELECT wal_status FROM pg_replication_slots "
                                                "WHERE slot_name = $1",
                                                {slot}));
        return status == "lost";
      },
      absl::Seconds(60), "the slot to be invalidated", absl::Milliseconds(200));
}

bool LooksLikeLsn(const std::string& text) {
  static const std::regex kLsn("^[0-9A-F]{1,8}/[0-9A-F]{1,8}$");
  return std::regex_match(text, kLsn);
}

}  // namespace outboxd::faults
