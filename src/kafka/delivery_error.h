#pragma once
// What a librdkafka error means for the relay (DESIGN.md invariants 6 and 7). The one place
// that decides; every code is classified explicitly, so a code added by a newer librdkafka is
// a compile warning here rather than a silent default.

#include <librdkafka/rdkafka.h>

#include <optional>
#include <string>
#include <string_view>

namespace outboxd::kafka {

enum class ErrorVerdict {
  kRecordRejected,  // This record can never be accepted: route it to the dead-letter topic.
  kReplay,          // Transient or unknown: tear down and replay from the confirmed LSN.
  kOperatorError,   // Credentials, ACLs or settings: stop with a message; retrying cannot help.
};

ErrorVerdict ClassifyError(rd_kafka_resp_err_t err);

// "NAME: description" of `err`, e.g. "MSG_SIZE_TOO_LARGE: Broker: Message size too large".
std::string DescribeError(rd_kafka_resp_err_t err);

// The fix an operator applies for an error ClassifyError calls kOperatorError, naming `topic`
// when it is an ACL problem. Empty for other errors.
std::string OperatorFix(rd_kafka_resp_err_t err, std::string_view topic);

// What to tell the operator when librdkafka's error callback reports `err` with `reason`: the
// message naming the cause and the fix when `err` is an operator error (the client cannot
// authenticate or set up TLS, or is not authorized), nullopt otherwise.
std::optional<std::string> OperatorErrorMessage(rd_kafka_resp_err_t err, std::string_view reason);

}  // namespace outboxd::kafka
