#pragma once
// Timestamps of outbox columns: the record timestamp (table.field.event.timestamp) and the
// event contract's occurred_at, read from Postgres' text and written as RFC 3339.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace outboxd::outbox {

// Milliseconds since the Unix epoch for Postgres' ISO text of a timestamp ("2026-12-02
// 05:16:59.123456", read as UTC, as Debezium's MicroTimestamp is) or, with `with_zone`, a
// timestamptz ("...+05:30"). Like Debezium's micros / 1000, sub-millisecond digits are cut
// toward zero. nullopt for any other text (infinity, BC dates, a non-ISO DateStyle).
std::optional<int64_t> ParseTimestampMs(std::string_view text, bool with_zone);
// The same text as microseconds since the Unix epoch, unrounded.
std::optional<int64_t> ParseTimestampMicros(std::string_view text, bool with_zone);

// Appends `unix_micros` as RFC 3339 in UTC the way protobuf's JSON mapping writes a Timestamp:
// "2026-12-02T05:16:59Z", with 3 or 6 fraction digits when the time has them.
void AppendRfc3339(int64_t unix_micros, std::string& out);

}  // namespace outboxd::outbox
