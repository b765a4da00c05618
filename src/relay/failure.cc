#include "relay/failure.h"

#include "absl/strings/cord.h"

namespace outboxd::relay {
namespace {

constexpr char kSidePayload[] = "outboxd.dev/relay-failure-side";

absl::string_view AbslLabel(FailureSide side) {
  const std::string_view label = SideLabel(side);
  return {label.data(), label.size()};
}

}  // namespace

absl::Status Blame(FailureSide side, absl::Status status) {
  if (status.ok() || status.GetPayload(kSidePayload).has_value()) return status;
  status.SetPayload(kSidePayload, absl::Cord(AbslLabel(side)));
  return status;
}

FailureSide SideOf(const absl::Status& status) {
  const auto payload = status.GetPayload(kSidePayload);
  if (!payload) return FailureSide::kPostgres;
  if (*payload == AbslLabel(FailureSide::kKafka)) return FailureSide::kKafka;
  if (*payload == AbslLabel(FailureSide::kSlot)) return FailureSide::kSlot;
  return FailureSide::kPostgres;
}

std::string_view SideLabel(FailureSide side) {
  switch (side) {
    case FailureSide::kPostgres:
      return "postgres";
    case FailureSide::kKafka:
      return "kafka";
    case FailureSide::kSlot:
      return "slot";
  }
  return "postgres";
}

}  // namespace outboxd::relay
