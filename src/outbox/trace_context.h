#pragma once
// W3C Trace Context (https://www.w3.org/TR/trace-context/): the syntax check that decides
// whether a traceparent column's value is propagated. A malformed one is dropped rather than
// passed on, because consumers' tracers would discard it anyway or, worse, start a broken trace.

#include <string_view>

namespace outboxd::outbox {

// True for "VV-<32 hex trace-id>-<16 hex parent-id>-FF" in lowercase hex: version not "ff",
// ids not all zeros; version 00 has exactly these 55 characters, a later version may append
// "-..." fields (the spec's forward compatibility).
bool IsValidTraceparent(std::string_view text);

}  // namespace outboxd::outbox
