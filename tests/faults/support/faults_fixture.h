#pragma once
// The faults fixture: the harness's OutboxdTest plus configs the harness cannot write yet
// ([postgres] create_slot, [outbox] dead_letter_topic and validate_json, raw TOML), outboxd
// processes run to their exit, and the checks every poison-row test repeats.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "harness/fixture.h"
#include "harness/kafka_consumer.h"
#include "harness/outboxd_process.h"
#include "harness/pg_client.h"
#include "support/dedicated_cluster.h"

namespace outboxd::faults {

// The exit codes outboxd documents, spelled out here (not taken from src/) so the tests check
// the numbers themselves.
inline constexpr int kExitUsage = 2;        // bad command line or config file
inline constexpr int kExitServerSetup = 3;  // wrong server settings, missing objects
inline constexpr int kExitPermission = 4;   // authentication or privileges
inline constexpr int kExitSlotLost = 6;     // the slot was invalidated or dropped under outboxd

// How a run that was expected to end did end, with everything it logged.
struct Ended {
  it::ExitStatus status;
  std::string log;
};

class FaultsTest : public it::OutboxdTest {
 protected:
  void SetUp() override;
  void TearDown() override;

  // "<prefix>.dlq", this test's dead-letter topic (deleted at the end).
  const std::string& dlq_topic() const { return dlq_topic_; }

  // The config file text: the harness's rendering of config() with `postgres_lines` added
  // under [postgres] and `outbox_lines` (plus dead_letter_topic = dlq_topic()) under [outbox].
  std::string ConfigText(const std::vector<std::string>& postgres_lines = {},
                         const std::vector<std::string>& outbox_lines = {});

  // Starts outboxd with `config_text`; the fixture owns the process until TearDown.
  absl::StatusOr<it::OutboxdProcess*> Launch(const std::string& config_text);
  // Launch, then wait until the slot of config() streams (rows committed after are captured).
  absl::StatusOr<it::OutboxdProcess*> LaunchStreaming(const std::string& config_text,
                                                      absl::Duration timeout = absl::Seconds(30));
  // Launch and wait for outboxd to exit on its own; DeadlineExceeded (log attached) if it
  // still runs after `timeout`.
  absl::StatusOr<Ended> RunUntilExit(const std::string& config_text,
                                     absl::Duration timeout = absl::Seconds(60));

  // RunUntilExit (60 s) that expects exit code `code` (a failure otherwise) and prints the log;
  // returns the log for message checks, "" if outboxd did not exit.
  std::string ExpectExit(const std::string& config_text, int code);

  // A dedicated cluster holding this test's outbox table (owned by role outboxd); config()
  // points at it. nullptr (with a test failure) if it cannot start.
  std::unique_ptr<DedicatedCluster> NewCluster();

  // Waits until the slot of config() has confirmed at least `position` (bytes since 0/0).
  absl::Status WaitForConfirmed(int64_t position, absl::Duration timeout = absl::Seconds(30));

 private:
  std::string log_dir_;
  std::string dlq_topic_;
  std::vector<std::unique_ptr<it::OutboxdProcess>> processes_;
};

// Creates logical slot `slot` through `admin` (a superuser of a dedicated cluster) under a
// 1 MB max_slot_wal_keep_size and writes WAL until a checkpoint invalidates it (wal_status
// lost); the setting stays. Up to 60 s.
absl::Status InvalidateSlot(it::PgClient& admin, const std::string& slot);

// True for "X/X" in upper-case hex, as Postgres prints an LSN.
bool LooksLikeLsn(const std::string& text);

}  // namespace outboxd::faults
