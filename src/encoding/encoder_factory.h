#pragma once
// The one place that reads [outbox] format: the Encoder a run uses, chosen at start-up.

#include <memory>
#include <string>

#include "config/config.h"
#include "encoding/avro/schema_ids.h"
#include "outbox/encoder.h"

namespace outboxd::encoding {

// A UUID (version 7, as Debezium's runId) drawn once per process; the same on every call.
std::string ProcessRunId();

// The encoder of cfg.format (with cfg's converters for "raw", cfg.cloudevents_mode for
// "cloudevents"). `cfg` must outlive it and every event it fills. `run_id` is the
// __debezium.context.runId header of the raw format's extended_headers. `schema_ids` is the
// registry of the avro converters, required when one is "avro" (config allows them only in the
// raw format), and must outlive the encoder.
std::unique_ptr<const outbox::Encoder> CreateEncoder(const config::OutboxConfig& cfg,
                                                     std::string run_id = ProcessRunId(),
                                                     SchemaIds* schema_ids = nullptr);

}  // namespace outboxd::encoding
