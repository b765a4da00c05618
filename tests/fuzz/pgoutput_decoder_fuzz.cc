// libFuzzer entry point for the pgoutput decoder. Any input must either decode, with tuples that
// walk exactly column_count columns inside the input, or fail with DataLoss; anything else (a
// crash, a sanitizer report, another status code) aborts.
//
//   ./pgoutput_decoder_fuzz -max_total_time=30 corpus/

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <variant>

#include "pgoutput/decoder.h"

namespace {

using outboxd::pgoutput::ColumnValue;
using outboxd::pgoutput::TupleData;

void Check(bool condition) {
  if (!condition) std::abort();
}

void WalkTuple(const TupleData& tuple, std::string_view input) {
  int walked = 0;
  for (TupleData::Reader reader(tuple); !reader.Done(); ++walked) {
    const ColumnValue value = reader.Next();
    if (value.data.empty()) continue;
    Check(value.data.data() >= input.data());
    Check(value.data.data() + value.data.size() <= input.data() + input.size());
  }
  Check(walked == tuple.column_count);
}

void WalkTuples(const outboxd::pgoutput::Message& message, std::string_view input) {
  namespace pg = outboxd::pgoutput;
  if (const auto* insert = std::get_if<pg::Insert>(&message)) {
    WalkTuple(insert->new_tuple, input);
  } else if (const auto* update = std::get_if<pg::Update>(&message)) {
    if (update->has_old) WalkTuple(update->old_tuple, input);
    WalkTuple(update->new_tuple, input);
  } else if (const auto* del = std::get_if<pg::Delete>(&message)) {
    WalkTuple(del->old_tuple, input);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<outboxd::pgoutput::Message> result = outboxd::pgoutput::Decode(input);
  if (result.ok()) {
    WalkTuples(*result, input);
  } else {
    Check(result.status().code() == absl::StatusCode::kDataLoss);
  }
  return 0;
}
