#pragma once
// How the relay gets its producer: the real librdkafka one, or a fake in tests.

#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "kafka/producer.h"

namespace outboxd::relay {

// Builds the producer for a publisher; `handler` receives its delivery reports.
using ProducerFactory = std::function<absl::StatusOr<std::unique_ptr<kafka::Producer>>(
    kafka::DeliveryHandler& handler)>;

}  // namespace outboxd::relay
