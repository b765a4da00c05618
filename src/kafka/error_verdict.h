#pragma once
// What a Kafka error means for the relay (DESIGN.md invariants 6 and 7), without librdkafka's
// types: kafka/delivery_error.h decides the verdict, the relay acts on it.

#include <string>
#include <string_view>

namespace outboxd::kafka {

enum class ErrorVerdict {
  kRecordRejected,  // This record can never be accepted: route it to the dead-letter topic.
  kReplay,          // Transient or unknown: tear down and replay from the confirmed LSN.
  kOperatorError,   // Credentials, ACLs or settings: stop with a message; retrying cannot help.
  // A newer producer with the same transactional.id took over: another instance owns the slot.
  // Stop without retrying; replaying would only fence it back.
  kFenced,
  // The open Kafka transaction failed and must be aborted; the producer stays usable. Abort,
  // then replay from the confirmed LSN.
  kAbortTransaction,
};

// What a fenced producer tells the operator: `what` happened (e.g. "Kafka fenced the producer
// (PRODUCER_FENCED: ...)"), why, and that this instance stops for good (exit 8).
std::string FencedMessage(std::string_view what);
// FencedMessage of "Kafka fenced the producer (<reason>)", for a fatal error or delivery report.
std::string ProducerFencedMessage(std::string_view reason);

}  // namespace outboxd::kafka
