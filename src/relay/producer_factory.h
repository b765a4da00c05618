#pragma once
// How the relay gets its producer: the real librdkafka one, or a fake in tests.

#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "kafka/producer.h"

namespace outboxd::relay {

// Builds the producer for a publisher; `handler` receives its delivery reports. `slot_index`:
// the parallel slot whose stream the publisher serves alone (exactly_once gives each slot a
// transactional producer of its own), 0 for a publisher every stream shares.
using ProducerFactory = std::function<absl::StatusOr<std::unique_ptr<kafka::Producer>>(
    kafka::DeliveryHandler& handler, int slot_index)>;

}  // namespace outboxd::relay
