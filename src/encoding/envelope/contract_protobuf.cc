#include "encoding/envelope/contract_protobuf.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace outboxd::encoding {

using outbox::ContractEvent;
using outbox::ContractSource;

namespace {

// Field numbers of proto/outboxd/v1/event.proto; never renumbered (the file's rule).
namespace event_field {
constexpr int kId = 1;
constexpr int kAggregateType = 2;
constexpr int kAggregateId = 3;
constexpr int kType = 4;
constexpr int kOccurredAt = 5;
constexpr int kCorrelationId = 6;
constexpr int kCausationId = 7;
constexpr int kTraceparent = 8;
constexpr int kTracestate = 9;
constexpr int kHeaders = 10;
constexpr int kContentType = 11;
constexpr int kPayload = 12;
constexpr int kSource = 14;
}  // namespace event_field
namespace source_field {
constexpr int kCommitLsn = 1;
constexpr int kLsn = 2;
constexpr int kXid = 3;
constexpr int kCommitTime = 4;
constexpr int kTable = 5;
constexpr int kMessagePrefix = 6;
}  // namespace source_field
// google.protobuf.Timestamp, and a map<string, string> entry.
constexpr int kSecondsField = 1;
constexpr int kNanosField = 2;
constexpr int kMapKeyField = 1;
constexpr int kMapValueField = 2;

// Wire types (protobuf encoding spec, "Message Structure").
enum WireType : uint32_t { kVarint = 0, kLengthDelimited = 2 };

size_t VarintSize(uint64_t value) {
  size_t size = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++size;
  }
  return size;
}

void AppendVarint(uint64_t value, std::string& out) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

// Every field number here is below 16: its tag is one byte.
void AppendTag(int field, WireType type, std::string& out) {
  out.push_back(static_cast<char>((static_cast<uint32_t>(field) << 3) | type));
}

size_t VarintFieldSize(uint64_t value) { return value == 0 ? 0 : 1 + VarintSize(value); }

void AppendVarintField(int field, uint64_t value, std::string& out) {
  if (value == 0) return;
  AppendTag(field, kVarint, out);
  AppendVarint(value, out);
}

size_t BytesSize(std::string_view bytes) { return 1 + VarintSize(bytes.size()) + bytes.size(); }
size_t StringFieldSize(std::string_view text) { return text.empty() ? 0 : BytesSize(text); }

void AppendBytes(int field, std::string_view bytes, std::string& out) {
  AppendTag(field, kLengthDelimited, out);
  AppendVarint(bytes.size(), out);
  out.append(bytes);
}

void AppendStringField(int field, std::string_view text, std::string& out) {
  if (!text.empty()) AppendBytes(field, text, out);
}

// Timestamp's seconds and nanos (never negative: a time before 1970 borrows a second).
struct SecondsNanos {
  int64_t seconds;
  int32_t nanos;
};

SecondsNanos SplitMicros(int64_t unix_micros) {
  int64_t seconds = unix_micros / 1000000;
  int64_t micros = unix_micros % 1000000;
  if (micros < 0) {
    micros += 1000000;
    --seconds;
  }
  return {seconds, static_cast<int32_t>(micros * 1000)};
}

// int64 and int32 are varints of their two's complement (a negative one takes 10 bytes).
size_t TimestampSize(SecondsNanos t) {
  return VarintFieldSize(static_cast<uint64_t>(t.seconds)) +
         VarintFieldSize(static_cast<uint64_t>(t.nanos));
}

void AppendTimestampField(int field, int64_t unix_micros, std::string& out) {
  const SecondsNanos t = SplitMicros(unix_micros);
  AppendTag(field, kLengthDelimited, out);
  AppendVarint(TimestampSize(t), out);
  AppendVarintField(kSecondsField, static_cast<uint64_t>(t.seconds), out);
  AppendVarintField(kNanosField, static_cast<uint64_t>(t.nanos), out);
}

size_t TimestampFieldSize(int64_t unix_micros) {
  const size_t size = TimestampSize(SplitMicros(unix_micros));
  return 1 + VarintSize(size) + size;
}

size_t SourceSize(const ContractSource& source) {
  return VarintFieldSize(source.commit_lsn) + VarintFieldSize(source.lsn) +
         VarintFieldSize(source.xid) +
         (source.commit_time_us ? TimestampFieldSize(*source.commit_time_us) : 0) +
         StringFieldSize(source.table) + StringFieldSize(source.message_prefix);
}

void AppendSourceField(const ContractSource& source, std::string& out) {
  AppendTag(event_field::kSource, kLengthDelimited, out);
  AppendVarint(SourceSize(source), out);
  AppendVarintField(source_field::kCommitLsn, source.commit_lsn, out);
  AppendVarintField(source_field::kLsn, source.lsn, out);
  AppendVarintField(source_field::kXid, source.xid, out);
  if (source.commit_time_us) {
    AppendTimestampField(source_field::kCommitTime, *source.commit_time_us, out);
  }
  AppendStringField(source_field::kTable, source.table, out);
  AppendStringField(source_field::kMessagePrefix, source.message_prefix, out);
}

// A map entry is a message of key (1) and value (2); both are written, as protobuf's own
// serializer does.
void AppendMapEntry(int field, std::string_view key, std::string_view value, std::string& out) {
  AppendTag(field, kLengthDelimited, out);
  AppendVarint(BytesSize(key) + BytesSize(value), out);
  AppendBytes(kMapKeyField, key, out);
  AppendBytes(kMapValueField, value, out);
}

}  // namespace

void AppendEventProtobuf(const ContractEvent& event, std::string& out) {
  using namespace event_field;  // NOLINT(google-build-using-namespace): field numbers only.
  AppendStringField(kId, event.id, out);
  AppendStringField(kAggregateType, event.aggregate_type, out);
  AppendStringField(kAggregateId, event.aggregate_id, out);
  AppendStringField(kType, event.type, out);
  if (event.occurred_at_us) AppendTimestampField(kOccurredAt, *event.occurred_at_us, out);
  AppendStringField(kCorrelationId, event.correlation_id, out);
  AppendStringField(kCausationId, event.causation_id, out);
  AppendStringField(kTraceparent, event.traceparent, out);
  AppendStringField(kTracestate, event.tracestate, out);
  for (const auto& [name, value] : event.headers) AppendMapEntry(kHeaders, name, value, out);
  AppendStringField(kContentType, event.content_type, out);
  if (event.payload) AppendBytes(kPayload, *event.payload, out);  // A oneof member: even empty.
  AppendSourceField(event.source, out);
}

}  // namespace outboxd::encoding
