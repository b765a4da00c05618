#pragma once
// The CLI tests' fixture: the faults fixture (one table, slot, publication and topic prefix per
// test, dedicated clusters) plus running `outboxd check|slot|run` with captured output.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "support/dedicated_cluster.h"
#include "support/faults_fixture.h"

namespace outboxd::cli {

class CliTest : public faults::FaultsTest {
 protected:
  void SetUp() override;

  // Writes `config_text` to a new file in this test's directory; returns its path.
  std::string WriteConfigFile(const std::string& config_text);
  // `outboxd <args...> --config <file of config_text>`, output echoed to the test log.
  CliResult Cli(std::vector<std::string> args, const std::string& config_text,
                const std::map<std::string, std::string>& env = {});
  CliResult Check(const std::string& config_text,
                  const std::map<std::string, std::string>& env = {}) {
    return Cli({"check"}, config_text, env);
  }
  // Starts `outboxd run --config ...` with `env` and extra `args`; owned by the fixture.
  CliProcess* StartRun(const std::string& config_text,
                       const std::map<std::string, std::string>& env,
                       const std::vector<std::string>& args = {});

  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  int runs_ = 0;
  std::vector<std::unique_ptr<CliProcess>> processes_;
};

// The line of `output` that starts with `prefix` (e.g. "FAIL wal_level:"), or "" if none.
std::string LineStartingWith(const std::string& output, const std::string& prefix);
// Every line of `output` starts with PASS or WARN.
::testing::AssertionResult OnlyPassOrWarn(const std::string& output);

}  // namespace outboxd::cli
