#pragma once
// The record timestamp from an outbox timestamp column (table.field.event.timestamp).

#include <cstdint>
#include <optional>
#include <string_view>

namespace outboxd::outbox {

// Milliseconds since the Unix epoch for Postgres' ISO text of a timestamp ("2026-12-02
// 05:16:59.123456", read as UTC, as Debezium's MicroTimestamp is) or, with `with_zone`, a
// timestamptz ("...+05:30"). Like Debezium's micros / 1000, sub-millisecond digits are cut
// toward zero. nullopt for any other text (infinity, BC dates, a non-ISO DateStyle).
std::optional<int64_t> ParseTimestampMs(std::string_view text, bool with_zone);

}  // namespace outboxd::outbox
