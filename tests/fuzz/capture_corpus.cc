// Captures a seed corpus for pgoutput_decoder_fuzz from a real server: streams a logical slot
// through outboxd's own pg module and writes each XLogData payload (one pgoutput message) to its
// own file, named "<sequence>-<message kind>". scripts/fuzz capture drives it; see docs/testing.md.
//
//   capture_corpus --conninfo=STR --slot=NAME --publication=NAME --table=SCHEMA.NAME...
//                  --out=DIR [--until-lsn=X/X] [--idle-ms=2000] [--timeout-ms=60000]
//
// The slot and the publication must exist (the tool creates nothing). It stops when a keepalive
// shows the walsender has passed --until-lsn, or after --idle-ms without data once some arrived.

#include <poll.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "common/status.h"
#include "common/types.h"
#include "fmt/format.h"
#include "pg/connection.h"
#include "pg/replication_protocol.h"
#include "pg/replication_stream.h"
#include "pg/slot_setup.h"
#include "pgoutput/wire.h"

namespace outboxd::fuzz {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string conninfo;
  std::string slot;
  std::string publication;
  std::vector<pg::QualifiedTable> tables;
  std::string out_dir;
  std::optional<Lsn> until;
  std::chrono::milliseconds idle{2000};
  std::chrono::milliseconds timeout{60000};
};

constexpr std::string_view kUsage =
    "usage: capture_corpus --conninfo=STR --slot=NAME --publication=NAME "
    "--table=SCHEMA.NAME... --out=DIR [--until-lsn=X/X] [--idle-ms=N] [--timeout-ms=N]\n";

absl::StatusOr<pg::QualifiedTable> ParseTable(std::string_view text) {
  const size_t dot = text.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == text.size()) {
    return absl::InvalidArgumentError(fmt::format("--table={}: expected SCHEMA.NAME", text));
  }
  return pg::QualifiedTable{std::string(text.substr(0, dot)), std::string(text.substr(dot + 1))};
}

absl::StatusOr<std::chrono::milliseconds> ParseMillis(std::string_view flag,
                                                      std::string_view text) {
  int64_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9' || value > 86'400'000) {
      return absl::InvalidArgumentError(fmt::format("{}={}: expected milliseconds", flag, text));
    }
    value = value * 10 + (c - '0');
  }
  if (text.empty()) return absl::InvalidArgumentError(fmt::format("{} needs a value", flag));
  return std::chrono::milliseconds(value);
}

absl::Status ApplyFlag(std::string_view name, std::string_view value, Options& options) {
  if (name == "--conninfo") {
    options.conninfo = value;
  } else if (name == "--slot") {
    options.slot = value;
  } else if (name == "--publication") {
    options.publication = value;
  } else if (name == "--out") {
    options.out_dir = value;
  } else if (name == "--table") {
    auto table = ParseTable(value);
    if (!table.ok()) return table.status();
    options.tables.push_back(*std::move(table));
  } else if (name == "--until-lsn") {
    options.until = Lsn::Parse(value);
    if (!options.until) {
      return absl::InvalidArgumentError(fmt::format("--until-lsn={}: expected X/X", value));
    }
  } else if (name == "--idle-ms" || name == "--timeout-ms") {
    auto ms = ParseMillis(name, value);
    if (!ms.ok()) return ms.status();
    (name == "--idle-ms" ? options.idle : options.timeout) = *ms;
  } else {
    return absl::InvalidArgumentError(fmt::format("unknown flag {}", name));
  }
  return absl::OkStatus();
}

absl::StatusOr<Options> ParseArgs(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const size_t eq = arg.find('=');
    if (eq == std::string_view::npos) {
      return absl::InvalidArgumentError(fmt::format("{}: expected --flag=value", arg));
    }
    if (auto s = ApplyFlag(arg.substr(0, eq), arg.substr(eq + 1), options); !s.ok()) return s;
  }
  if (options.conninfo.empty() || options.slot.empty() || options.publication.empty() ||
      options.tables.empty() || options.out_dir.empty()) {
    return absl::InvalidArgumentError(
        "--conninfo, --slot, --publication, --table and --out are required");
  }
  return options;
}

// File-name suffixes by pgoutput message tag (the first byte).
constexpr std::pair<char, std::string_view> kKindNames[] = {
    {pgoutput::wire::kBegin, "begin"},       {pgoutput::wire::kCommit, "commit"},
    {pgoutput::wire::kOrigin, "origin"},     {pgoutput::wire::kRelation, "relation"},
    {pgoutput::wire::kType, "type"},         {pgoutput::wire::kInsert, "insert"},
    {pgoutput::wire::kUpdate, "update"},     {pgoutput::wire::kDelete, "delete"},
    {pgoutput::wire::kTruncate, "truncate"}, {pgoutput::wire::kMessage, "message"},
};

std::string_view KindName(std::string_view message) {
  for (const auto& [tag, name] : kKindNames) {
    if (!message.empty() && message.front() == tag) return name;
  }
  return "unknown";
}

absl::Status WriteMessage(const Options& options, int sequence, std::string_view message) {
  const std::string path =
      fmt::format("{}/{:04d}-{}", options.out_dir, sequence, KindName(message));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(message.data(), static_cast<std::streamsize>(message.size()));
  out.close();
  if (!out) return absl::InternalError(fmt::format("cannot write {}", path));
  return absl::OkStatus();
}

// Blocks until the replication socket is readable or `wait` passes.
absl::Status WaitReadable(const pg::ReplicationStream& stream, std::chrono::milliseconds wait) {
  pollfd fd{.fd = stream.socket(), .events = POLLIN, .revents = 0};
  if (poll(&fd, 1, static_cast<int>(wait.count())) < 0) {
    return absl::InternalError("poll on the replication socket failed");
  }
  return absl::OkStatus();
}

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Streams until the stop condition in the file comment; returns the number of files written.
absl::StatusOr<int> Capture(const Options& options, pg::ReplicationStream& stream) {
  const Clock::time_point deadline = Clock::now() + options.timeout;
  Clock::time_point last_data = Clock::now();
  int written = 0;
  Lsn received;
  while (Clock::now() < deadline) {
    if (written > 0 && Clock::now() - last_data > options.idle) return written;
    absl::StatusOr<std::optional<pg::CopyBuffer>> buffer = stream.Read();
    if (!buffer.ok()) return buffer.status();
    if (!buffer->has_value()) {
      if (auto s = WaitReadable(stream, std::chrono::milliseconds(100)); !s.ok()) return s;
      continue;
    }
    absl::StatusOr<pg::CopyMessage> message = pg::ParseCopyMessage((*buffer)->view());
    if (!message.ok()) return message.status();
    if (const auto* data = std::get_if<pg::XLogData>(&*message)) {
      if (auto s = WriteMessage(options, ++written, data->data); !s.ok()) return s;
      received = std::max(received, data->wal_start);
      last_data = Clock::now();
      continue;
    }
    const auto& keepalive = std::get<pg::Keepalive>(*message);
    if (options.until && keepalive.wal_end >= *options.until) return written;
    if (keepalive.reply_requested) {
      // Reports what arrived but confirms nothing: the slot is thrown away after the capture.
      const std::string status = pg::EncodeStandbyStatus(received, Lsn(), NowMicros(), false);
      if (auto s = stream.SendStatus(status); !s.ok()) return s;
    }
  }
  if (written == 0) return absl::DeadlineExceededError("no XLogData arrived before --timeout-ms");
  return written;
}

absl::Status Run(const Options& options) {
  absl::StatusOr<pg::Connection> conn = pg::Connection::Open(options.conninfo);
  if (!conn.ok()) return conn.status();
  const pg::SetupOptions setup{.slot = options.slot,
                               .publication = options.publication,
                               .tables = options.tables,
                               .create_missing = false,
                               .resume_check = {}};
  if (auto identity = pg::PrepareReplication(*conn, setup); !identity.ok()) {
    return identity.status();
  }
  absl::StatusOr<pg::ReplicationStream> stream = pg::ReplicationStream::Start(
      *std::move(conn),
      pg::StreamOptions{.slot = options.slot, .publication = options.publication});
  if (!stream.ok()) return stream.status();
  absl::StatusOr<int> written = Capture(options, *stream);
  if (!written.ok()) return written.status();
  fmt::print(stderr, "capture_corpus: wrote {} messages to {}\n", *written, options.out_dir);
  return absl::OkStatus();
}

}  // namespace
}  // namespace outboxd::fuzz

int main(int argc, char** argv) {
  const absl::StatusOr<outboxd::fuzz::Options> options = outboxd::fuzz::ParseArgs(argc, argv);
  if (!options.ok()) {
    fmt::print(stderr, "capture_corpus: {}\n{}", outboxd::MessageOf(options.status()),
               outboxd::fuzz::kUsage);
    return 2;
  }
  if (const absl::Status s = outboxd::fuzz::Run(*options); !s.ok()) {
    fmt::print(stderr, "capture_corpus: {}\n", outboxd::MessageOf(s));
    return 1;
  }
  return 0;
}
