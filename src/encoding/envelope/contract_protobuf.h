#pragma once
// envelope-protobuf: outboxd.v1.Event (proto/outboxd/v1/event.proto) in the protobuf binary
// encoding, written by hand so the daemon links no protobuf runtime. The field numbers below
// are the .proto file's; tests/unit/outbox parses the output with protoc's generated code.

#include <string>

#include "outbox/contract_event.h"

namespace outboxd::encoding {

// Appends the binary encoding of `event` to `out`: fields in field-number order, proto3
// defaults (empty strings, zero numbers) left out, set messages and the `payload` oneof member
// written even when empty. Allocates nothing beyond growing `out`.
void AppendEventProtobuf(const outbox::ContractEvent& event, std::string& out);

}  // namespace outboxd::encoding
