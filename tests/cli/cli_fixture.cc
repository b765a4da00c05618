#include "cli_fixture.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "harness/outbox_writer.h"
#include "harness/pg_client.h"

namespace outboxd::cli {

void CliTest::SetUp() {
  FaultsTest::SetUp();
  if (HasFatalFailure()) return;
  dir_ = (std::filesystem::path(env().log_dir) / UniqueName("cli")).string();
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  ASSERT_FALSE(ec) << "cannot create " << dir_ << ": " << ec.message();
}

std::string CliTest::WriteConfigFile(const std::string& config_text) {
  const std::string path = absl::StrCat(dir_, "/config-", ++runs_, ".toml");
  std::ofstream file(path, std::ios::trunc);
  file << config_text;
  EXPECT_TRUE(file.good()) << "cannot write " << path;
  return path;
}

CliResult CliTest::Cli(std::vector<std::string> args, const std::string& config_text,
                       const std::map<std::string, std::string>& env) {
  args.push_back("--config");
  args.push_back(WriteConfigFile(config_text));
  absl::StatusOr<CliResult> result = RunCli(this->env().outboxd_binary, args, env, dir_,
                                            absl::StrCat("cli-", runs_), absl::Seconds(60));
  if (!result.ok()) {
    ADD_FAILURE() << result.status();
    return CliResult{};
  }
  std::cout << "[outboxd " << args[0] << " exit " << result->exit_code << "]\n"
            << result->out << result->err;
  return *result;
}

CliProcess* CliTest::StartRun(const std::string& config_text,
                              const std::map<std::string, std::string>& env,
                              const std::vector<std::string>& args) {
  std::vector<std::string> all = {"run", "--config", WriteConfigFile(config_text)};
  all.insert(all.end(), args.begin(), args.end());
  absl::StatusOr<std::unique_ptr<CliProcess>> process =
      CliProcess::Start(this->env().outboxd_binary, all, env, dir_, absl::StrCat("run-", runs_));
  if (!process.ok()) {
    ADD_FAILURE() << process.status();
    return nullptr;
  }
  processes_.push_back(std::move(*process));
  return processes_.back().get();
}

std::string LineStartingWith(const std::string& output, const std::string& prefix) {
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    if (absl::StartsWith(line, prefix)) return line;
  }
  return "";
}

::testing::AssertionResult OnlyPassOrWarn(const std::string& output) {
  std::istringstream lines(output);
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) {
    ++count;
    if (!absl::StartsWith(line, "PASS ") && !absl::StartsWith(line, "WARN ")) {
      return ::testing::AssertionFailure() << "line is neither PASS nor WARN: " << line;
    }
  }
  if (count == 0) return ::testing::AssertionFailure() << "no output at all";
  return ::testing::AssertionSuccess();
}

}  // namespace outboxd::cli
