#pragma once
// Shared fixtures for the pgoutput decoder tests: one valid encoding of every message shape,
// and a readable rendering of decoded tuples.

#include <string>
#include <string_view>
#include <vector>

#include "pgoutput/messages.h"

namespace outboxd::pgoutput::testing {

struct SampleMessage {
  std::string type;   // The name the decoder's errors must use, e.g. "Insert".
  std::string bytes;  // A valid encoding, as PostgreSQL 15 sends it.
};

// At least one sample of every message type and every Update/Delete marker combination, with
// tuples that mix null, unchanged-toast, text and binary columns.
const std::vector<SampleMessage>& SampleMessages();

// Renders each column as "n", "u", "t:<text>" or "b:<bytes>" by walking TupleData::Reader.
std::vector<std::string> RenderColumns(const TupleData& tuple);

// The message type's name as the decoder's errors spell it ("Begin", ..., "Message").
std::string_view TypeName(const Message& message);

// Every tuple a message carries (none for non-DML messages), in wire order.
std::vector<const TupleData*> TuplesOf(const Message& message);

}  // namespace outboxd::pgoutput::testing
