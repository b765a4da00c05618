#pragma once
// One row as the event contract's fields (proto/outboxd/v1/event.proto, outboxd.v1.Event),
// from which the envelope formats and CloudEvents are written. Plain views, so that filling it
// costs no allocation and the daemon needs no protobuf runtime (whose pages alone were ~1.8 MB
// of outboxd's resident set).

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

#include "absl/container/inlined_vector.h"

namespace outboxd::outbox {

// SourcePosition: where the event was read in the WAL.
struct ContractSource {
  uint64_t commit_lsn = 0;
  uint64_t lsn = 0;
  uint32_t xid = 0;
  std::optional<int64_t> commit_time_us;  // µs since the Unix epoch; none for a
                                          // non-transactional logical message.
  std::string_view table;                 // "schema.table"; empty for a logical message.
  std::string_view message_prefix;        // The logical message's prefix; empty for a row.
};

// Event. Every view points into the decoded WAL message, the Mapper's config or its relation
// layouts, and is valid until the next row is mapped. An empty string is proto3's "unset".
struct ContractEvent {
  std::string_view id;
  std::string_view aggregate_type;
  std::string_view aggregate_id;
  std::string_view type;
  std::optional<int64_t> occurred_at_us;  // µs since the Unix epoch.
  std::string_view correlation_id;
  std::string_view causation_id;
  std::string_view traceparent;
  std::string_view tracestate;
  // The `headers` map, in placement order; names are unique (a repeated placement alias keeps
  // its last value, as a map would).
  absl::InlinedVector<std::pair<std::string_view, std::string_view>, 4> headers;
  std::string_view content_type;
  std::optional<std::string_view> payload;  // The `data` oneof's `payload`; nullopt: not set.
  ContractSource source;                    // Always present.
};

}  // namespace outboxd::outbox
