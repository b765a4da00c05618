#include "metrics/health_join.h"

#include <string_view>
#include <utility>

#include "absl/strings/str_join.h"

namespace outboxd::metrics {
namespace {

// A component ready in every part; else the first part's that is not, prefixed by its slot.
// `ready` says what every part being ready means, e.g. "streaming slots".
Health::Component Join(const std::vector<Health::Snapshot>& parts,
                       const std::vector<std::string>& slots,
                       Health::Component Health::Snapshot::*which, std::string_view ready) {
  for (size_t i = 0; i < parts.size(); ++i) {
    const Health::Component& c = parts[i].*which;
    if (!c.ok) return {false, "slot " + slots[i] + ": " + c.reason};
  }
  return {true, std::string(ready) + " " + absl::StrJoin(slots, ", ")};
}

}  // namespace

HealthJoin::HealthJoin(Health& target, std::vector<std::string> slots)
    : target_(target), slots_(std::move(slots)) {
  std::vector<Health::Snapshot> initial;
  for (size_t i = 0; i < slots_.size(); ++i) {
    parts_.push_back(std::make_unique<Health>());
    initial.push_back(parts_.back()->Read());
    parts_.back()->OnChange([this, i](const Health::Snapshot& s) { Changed(i, s); });
  }
  // Not while reading the parts: the lock order is a part's lock, then mu_.
  absl::MutexLock lock(&mu_);
  latest_ = std::move(initial);
}

void HealthJoin::Changed(size_t index, const Health::Snapshot& snapshot) {
  absl::MutexLock lock(&mu_);
  const Health::Snapshot before = latest_[index];
  latest_[index] = snapshot;
  // Lock order: a part's lock, then mu_, then the target's.
  if (before.streaming.ok != snapshot.streaming.ok ||
      before.streaming.reason != snapshot.streaming.reason) {
    Health::Component c = Join(latest_, slots_, &Health::Snapshot::streaming, "streaming slots");
    target_.SetStreaming(c.ok, std::move(c.reason));
  }
  if (before.slot.ok != snapshot.slot.ok || before.slot.reason != snapshot.slot.reason) {
    Health::Component c = Join(latest_, slots_, &Health::Snapshot::slot, "WAL safe on slots");
    target_.SetSlot(c.ok, std::move(c.reason));
  }
}

}  // namespace outboxd::metrics
