#pragma once
// Pure, strict decoder of pgoutput protocol-version-1 messages. No I/O.

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "pgoutput/messages.h"

namespace outboxd::pgoutput {

// Decodes one logical replication message: the payload of an XLogData ('w') CopyData message,
// after its 24-byte header. Returns DataLoss naming the message and field when the bytes are
// truncated, carry trailing garbage, an unknown tag, or an unknown flag/marker.
// The returned message points into `bytes`, which must outlive it.
absl::StatusOr<Message> Decode(std::string_view bytes);
// A temporary buffer would die before the returned views are read.
absl::StatusOr<Message> Decode(std::string&& bytes) = delete;

}  // namespace outboxd::pgoutput
