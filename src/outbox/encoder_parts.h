#pragma once
// Internal to outboxd_outbox: what every format shares (the converted key, placed headers and
// trace-context headers), and the concrete encoders CreateEncoder chooses from.

#include <memory>
#include <string>

#include "config/config.h"
#include "outbox/encoder.h"

namespace outboxd::outbox::internal {

// Sets out.key: the aggregate id through cfg.key_converter (Connect's key.converter), in every
// format. Uses out.owned_key and out.scratch.
void EncodeKey(const config::OutboxConfig& cfg, const MappedRow& row, OutboxEvent& out);

// Appends one header per "header" placement, in config order: alias = the column's text, or a
// null value for NULL.
void AppendPlacementHeaders(const config::OutboxConfig& cfg, const MappedRow& row,
                            OutboxEvent& out);

// Appends traceparent, and tracestate when not NULL, for a row with a valid traceparent: so
// rows without one, and raw records of tables without the columns, are unchanged.
void AppendTraceHeaders(const MappedRow& row, OutboxEvent& out);

// The concrete encoders; each keeps a reference to `cfg`, which must outlive it.
std::unique_ptr<const Encoder> NewRawEncoder(const config::OutboxConfig& cfg, std::string run_id);
std::unique_ptr<const Encoder> NewEnvelopeJsonEncoder(const config::OutboxConfig& cfg);
std::unique_ptr<const Encoder> NewEnvelopeProtobufEncoder(const config::OutboxConfig& cfg);
std::unique_ptr<const Encoder> NewCloudEventsEncoder(const config::OutboxConfig& cfg);

}  // namespace outboxd::outbox::internal
