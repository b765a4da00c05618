#pragma once
// The JSON forms of the event contract: envelope-json (protobuf's canonical JSON mapping of
// outboxd.v1.Event, written directly rather than through json_format, which is several times
// slower and allocates per field) and CloudEvents' structured mode (application/cloudevents+json).

#include <string>
#include <string_view>

#include "outbox/contract_event.h"

namespace outboxd::encoding {

// Appends `event` in protobuf's JSON mapping: lowerCamelCase names, fields at their default
// left out, uint64 as strings, Timestamps as RFC 3339, bytes as base64. With
// `payload_is_json`, the payload (JSON text of a json/jsonb column) is embedded as it stands
// under "payloadJson" (the Value field); otherwise it is "payload", base64.
void AppendEventJson(const outbox::ContractEvent& event, bool payload_is_json, std::string& out);

// Appends the CloudEvents 1.0 JSON event of `event`: specversion, id, source, type, subject
// (aggregate id), time (occurred_at), datacontenttype, the correlationid and causationid
// extensions, and "data" (JSON embedded, with `payload_is_json`) or "data_base64".
void AppendCloudEventJson(const outbox::ContractEvent& event, std::string_view source,
                          bool payload_is_json, std::string& out);

}  // namespace outboxd::encoding
