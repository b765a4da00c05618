// The hand-written envelope-protobuf encoder (contract_protobuf.cc) against protobuf's own
// serializer of the same outboxd.v1.Event: byte for byte (deterministic serialization, whose
// map entries come sorted by key, so the events here carry sorted header names) and parsed
// back by protobuf's parser.

#include "encoding/envelope/contract_protobuf.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "outboxd/v1/event.pb.h"

namespace outboxd::outbox {

using encoding::AppendEventProtobuf;
namespace {

void SetTime(int64_t unix_micros, google::protobuf::Timestamp& out) {
  int64_t seconds = unix_micros / 1000000;
  int64_t micros = unix_micros % 1000000;
  if (micros < 0) {
    micros += 1000000;
    --seconds;
  }
  out.set_seconds(seconds);
  out.set_nanos(static_cast<int32_t>(micros * 1000));
}

// The same event built through protobuf's generated API.
v1::Event Reference(const ContractEvent& e) {
  v1::Event ref;
  ref.set_id(std::string(e.id));
  ref.set_aggregate_type(std::string(e.aggregate_type));
  ref.set_aggregate_id(std::string(e.aggregate_id));
  ref.set_type(std::string(e.type));
  if (e.occurred_at_us) SetTime(*e.occurred_at_us, *ref.mutable_occurred_at());
  ref.set_correlation_id(std::string(e.correlation_id));
  ref.set_causation_id(std::string(e.causation_id));
  ref.set_traceparent(std::string(e.traceparent));
  ref.set_tracestate(std::string(e.tracestate));
  for (const auto& [name, value] : e.headers) {
    (*ref.mutable_headers())[std::string(name)] = std::string(value);
  }
  ref.set_content_type(std::string(e.content_type));
  if (e.payload) ref.set_payload(std::string(*e.payload));
  v1::SourcePosition& source = *ref.mutable_source();
  source.set_commit_lsn(e.source.commit_lsn);
  source.set_lsn(e.source.lsn);
  source.set_xid(e.source.xid);
  if (e.source.commit_time_us) SetTime(*e.source.commit_time_us, *source.mutable_commit_time());
  source.set_table(std::string(e.source.table));
  source.set_message_prefix(std::string(e.source.message_prefix));
  return ref;
}

std::string DeterministicBytes(const v1::Event& event) {
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  EXPECT_TRUE(event.SerializeToCodedStream(&coded));
  coded.Trim();
  return bytes;
}

// Encodes `e` both ways and compares the bytes and the parse of ours.
void ExpectSameAsProtobuf(const ContractEvent& e) {
  std::string ours = "prefix";  // Appends, never overwrites.
  AppendEventProtobuf(e, ours);
  ASSERT_EQ(ours.substr(0, 6), "prefix");
  ours.erase(0, 6);
  const v1::Event ref = Reference(e);
  EXPECT_EQ(ours, DeterministicBytes(ref));
  v1::Event parsed;
  ASSERT_TRUE(parsed.ParseFromString(ours));
  EXPECT_EQ(parsed.SerializeAsString().size(), ref.SerializeAsString().size());
  EXPECT_EQ(parsed.data_case(), ref.data_case());
  EXPECT_EQ(parsed.has_occurred_at(), e.occurred_at_us.has_value());
  EXPECT_EQ(parsed.source().has_commit_time(), e.source.commit_time_us.has_value());
}

TEST(ContractProtobufTest, AnEmptyEventIsItsEmptySourceMessage) {
  ContractEvent e;
  std::string out;
  AppendEventProtobuf(e, out);
  EXPECT_EQ(out, std::string("\x72\x00", 2));  // Field 14, length-delimited, 0 bytes.
  ExpectSameAsProtobuf(e);
}

TEST(ContractProtobufTest, EveryFieldSet) {
  ContractEvent e;
  e.id = "7b5a2c1e-2f59-4d3e-9a55-7a1d1bd2b3c4";
  e.aggregate_type = "order";
  e.aggregate_id = "order-1";
  e.type = "OrderCreated";
  e.occurred_at_us = 1767323045123456;
  e.correlation_id = "corr-1";
  e.causation_id = "cause-1";
  e.traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  e.tracestate = "congo=t61";
  e.headers = {{"eventType", "OrderCreated"}, {"tenant", "acme"}};
  e.content_type = "application/json";
  e.payload = R"({"text": "grüße 😀"})";
  e.source = {.commit_lsn = 0x16B3748,
              .lsn = 0x16B3700,
              .xid = 750,
              .commit_time_us = 1796212800000000,
              .table = "public.outbox",
              .message_prefix = ""};
  ExpectSameAsProtobuf(e);
}

TEST(ContractProtobufTest, AnEmptyPayloadIsStillSetAndEmptyHeaderValuesAreKept) {
  ContractEvent e;
  e.payload = "";
  e.headers = {{"", ""}, {"a", ""}};
  ExpectSameAsProtobuf(e);
}

TEST(ContractProtobufTest, ExtremeNumbersAndTimesBefore1970) {
  for (int64_t micros : {int64_t{-1}, int64_t{-1000000}, int64_t{-62135596800000000}, int64_t{0},
                         int64_t{999999}, int64_t{253402300799999999}}) {
    ContractEvent e;
    e.occurred_at_us = micros;
    e.source = {.commit_lsn = UINT64_MAX,
                .lsn = 1,
                .xid = UINT32_MAX,
                .commit_time_us = micros,
                .table = "",
                .message_prefix = ""};
    SCOPED_TRACE(micros);
    ExpectSameAsProtobuf(e);
  }
}

TEST(ContractProtobufTest, LengthsThatNeedMultiByteVarints) {
  const std::string long_text(300, 'x');
  const std::string huge_payload(70000, '\xff');
  ContractEvent e;
  e.aggregate_id = long_text;
  e.headers = {{long_text, long_text}};
  e.payload = huge_payload;
  e.source.table = long_text;  // Makes the source message itself longer than 127 bytes.
  ExpectSameAsProtobuf(e);
}

// Random events: every field present or not, strings of 0-200 characters (UTF-8 in string
// fields, any byte in the payload), up to three headers.
TEST(ContractProtobufTest, RandomEventsMatchProtobufByteForByte) {
  std::mt19937_64 rng(20261203);
  auto chance = [&](int percent) { return static_cast<int>(rng() % 100) < percent; };
  auto text = [&](std::string& storage) -> std::string_view {
    storage.clear();
    const size_t length = chance(30) ? 0 : rng() % 200;
    static constexpr std::string_view kPieces[] = {"a", "Z", "0", "-", " ", "é", "😀", "\n"};
    while (storage.size() < length) storage.append(kPieces[rng() % std::size(kPieces)]);
    return storage;
  };
  for (int i = 0; i < 2000; ++i) {
    std::vector<std::string> storage(20);
    size_t next = 0;
    auto field = [&] { return text(storage[next++]); };
    ContractEvent e;
    e.id = field();
    e.aggregate_type = field();
    e.aggregate_id = field();
    e.type = field();
    if (chance(50)) e.occurred_at_us = static_cast<int64_t>(rng() % (1ULL << 52)) - (1LL << 50);
    e.correlation_id = field();
    e.causation_id = field();
    e.traceparent = field();
    e.tracestate = field();
    const int headers = static_cast<int>(rng() % 4);
    for (int h = 0; h < headers; ++h) {
      e.headers.emplace_back(std::string_view(storage[next] = "h" + std::to_string(h)), field());
      ++next;
    }
    e.content_type = field();
    if (chance(70)) {
      std::string& bytes = storage[next++];
      bytes.resize(rng() % 300);
      for (char& c : bytes) c = static_cast<char>(rng());
      e.payload = bytes;
    }
    e.source.commit_lsn = chance(20) ? 0 : rng() >> (rng() % 64);
    e.source.lsn = chance(20) ? 0 : rng() >> (rng() % 64);
    e.source.xid = chance(20) ? 0 : static_cast<uint32_t>(rng());
    if (chance(50)) e.source.commit_time_us = static_cast<int64_t>(rng() % (1ULL << 52));
    if (chance(50))
      e.source.table = field();
    else
      e.source.message_prefix = field();
    SCOPED_TRACE(i);
    ExpectSameAsProtobuf(e);
    if (HasFailure()) break;
  }
}

}  // namespace
}  // namespace outboxd::outbox
