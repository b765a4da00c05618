#pragma once
// Internal to outboxd_encoding: the event contract's formats (docs/event-formats.md), which
// fill an outboxd.v1.Event (proto/outboxd/v1/event.proto) from the row and write it: as
// protobuf or its canonical JSON (contract_encoder.cc), or as a CloudEvent
// (cloudevents_encoder.cc).

#include <string>

#include "absl/status/status.h"
#include "config/config.h"
#include "outbox/encoder.h"

namespace outboxd::encoding::internal {

// The steps every contract format takes: the converted key, the headers ("id" unless
// CloudEvents, the placed headers, trace context), the event filled into row.contract, then
// the format's value (null for a tombstone).
class ContractEncoder : public outbox::Encoder {
 public:
  absl::Status Encode(const outbox::MappedRow& row, outbox::OutboxEvent& out) const final;

 protected:
  // `cfg` must outlive the encoder. `id_header`: the record carries the "id" header.
  ContractEncoder(const config::OutboxConfig& cfg, bool id_header)
      : cfg_(cfg), id_header_(id_header) {}

  // InvalidArgument when the filled event cannot be written in this format; OK by default.
  virtual absl::Status Check(const outbox::ContractEvent& event) const;
  // Sets out.value, and any headers of the format, from the filled row.contract of a row that
  // is not a tombstone.
  virtual void EncodeEvent(const outbox::MappedRow& row, outbox::OutboxEvent& out) const = 0;

  const config::OutboxConfig& cfg_;

 private:
  // Fills row.contract; InvalidArgument for an occurred_at value that is no timestamp.
  absl::Status FillEvent(const outbox::MappedRow& row) const;

  const bool id_header_;
};

// Sets out.value to what `encode` appends to an empty owned_value. A bytea payload was decoded
// into owned_value itself: then it is encoded into scratch and the two swapped.
template <typename Encode>
void EncodeIntoOwnedValue(const outbox::ContractEvent& event, outbox::OutboxEvent& out,
                          Encode encode) {
  const bool payload_is_owned = event.payload && event.payload->data() == out.owned_value.data();
  std::string& target = payload_is_owned ? out.scratch : out.owned_value;
  target.clear();
  encode(target);
  if (payload_is_owned) out.owned_value.swap(out.scratch);
  out.value = out.owned_value;
}

}  // namespace outboxd::encoding::internal
