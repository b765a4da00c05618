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

// One CopyData message as libpq allocated it; freed with PQfreemem.
class CopyBuffer {
 public:
  CopyBuffer(char* data, int size) : data_(data), size_(static_cast<size_t>(size)) {}
  std::string_view view() const { return {data_.get(), size_}; }

 private:
  struct Free {
    void operator()(char* p) const { PQfreemem(p); }
  };
  std::unique_ptr<char, Free> data_;
  size_t size_;
};

struct StreamOptions {
  std::string slot;
  std::string publication;
};

class ReplicationStream {
 public:
  // Sends START_REPLICATION from the slot's confirmed position (0/0 lets the server choose it)
  // with pgoutput proto_version 1 and streaming off (DESIGN.md invariant 2). Takes `conn` over.
  static absl::StatusOr<ReplicationStream> Start(Connection conn, const StreamOptions& options);

  // The socket to poll for readability while Read() returns nullopt.
  int socket() const { return PQsocket(conn_.raw()); }

  // Returns the next buffered message without blocking, reading the socket only when nothing
  // is buffered; nullopt when nothing has arrived. Unavailable when the server ends the stream
  // or the connection breaks.
  absl::StatusOr<std::optional<CopyBuffer>> Read();

  // Queues a standby status update and pushes it out without blocking.
  absl::Status SendStatus(std::string_view status_message);
  // True while queued output is still unsent: poll the socket for writability then Flush().
  bool HasPendingOutput() const { return pending_output_; }
  absl::Status Flush();

 private:
  explicit ReplicationStream(Connection conn) : conn_(std::move(conn)) {}
  absl::Status StreamEnded();

  Connection conn_;
  bool pending_output_ = false;
};

}  // namespace outboxd::pg
