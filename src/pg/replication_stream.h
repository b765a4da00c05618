#pragma once
// A started logical replication stream: non-blocking reads of CopyData messages and writes of
// standby status updates over one libpq connection in CopyBoth mode.

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/types.h"
#include "pg/connection.h"

namespace outboxd::pg {

// One CopyData message: as libpq allocated it (freed with PQfreemem), or owned bytes (fakes).
// Moving it keeps view() pointing at the same bytes.
class CopyBuffer {
 public:
  CopyBuffer(char* data, int size) : data_(data), size_(static_cast<size_t>(size)) {}
  explicit CopyBuffer(std::string bytes)
      : owned_(std::make_unique<std::string>(std::move(bytes))), size_(owned_->size()) {}
  std::string_view view() const { return {data_ ? data_.get() : owned_->data(), size_}; }

 private:
  struct Free {
    void operator()(char* p) const { PQfreemem(p); }
  };
  std::unique_ptr<char, Free> data_;
  std::unique_ptr<std::string> owned_;
  size_t size_;
};

// The CopyBoth channel of a started replication stream, as the relay's replication session
// uses it; implemented over libpq below, and by fakes in tests.
class ReplicationChannel {
 public:
  virtual ~ReplicationChannel() = default;
  // The socket to poll for readability while Read() returns nullopt.
  virtual int socket() const = 0;
  // The next message without blocking; nullopt when nothing has arrived. Unavailable when the
  // server ends the stream or the connection breaks.
  virtual absl::StatusOr<std::optional<CopyBuffer>> Read() = 0;
  // Queues a standby status update and pushes it out without blocking.
  virtual absl::Status SendStatus(std::string_view status_message) = 0;
  // True while queued output is still unsent: poll the socket for writability then Flush().
  virtual bool HasPendingOutput() const = 0;
  virtual absl::Status Flush() = 0;
};

struct StreamOptions {
  std::string slot;
  std::string publication;
  // Ask pgoutput for logical decoding messages (pg_logical_emit_message) too.
  bool messages = false;
};

class ReplicationStream final : public ReplicationChannel {
 public:
  // Sends START_REPLICATION from the slot's confirmed position (0/0 lets the server choose it)
  // with pgoutput proto_version 1 and streaming off (DESIGN.md invariant 2). Takes `conn` over.
  static absl::StatusOr<ReplicationStream> Start(Connection conn, const StreamOptions& options);

  int socket() const override { return PQsocket(conn_.raw()); }
  // Reads the socket only when libpq has nothing buffered.
  absl::StatusOr<std::optional<CopyBuffer>> Read() override;
  absl::Status SendStatus(std::string_view status_message) override;
  bool HasPendingOutput() const override { return pending_output_; }
  absl::Status Flush() override;

 private:
  explicit ReplicationStream(Connection conn) : conn_(std::move(conn)) {}
  absl::Status StreamEnded();

  Connection conn_;
  bool pending_output_ = false;
};

}  // namespace outboxd::pg
