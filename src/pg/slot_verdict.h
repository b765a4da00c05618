#pragma once
// The WAL guard's judgement of one slot (DESIGN.md invariant 8): safe, at risk of being
// invalidated, or lost, with the words for /readyz and for the log. Pure: no I/O, no clock.

#include <cstdint>
#include <string>
#include <string_view>

#include "pg/slot_state.h"

namespace outboxd::pg {

enum class SlotRisk {
  kSafe,    // WAL reserved and safe_wal_size at or above the threshold (or unlimited).
  kAtRisk,  // wal_status = unreserved, or safe_wal_size below the threshold: not ready.
  kLost,    // Invalidated (wal_status = lost), or dropped while outboxd ran: exit 6.
};

struct SlotPolicy {
  std::string slot;
  // [postgres] min_safe_wal_size_mb in bytes; 0 disables the threshold (wal_status still
  // counts).
  int64_t min_safe_wal_size_bytes = 0;
};

struct SlotVerdict {
  SlotRisk risk = SlotRisk::kSafe;
  std::string reason;  // A few words with the numbers, for /readyz.
  std::string detail;  // The log line: the numbers and, unless safe, what it means and the fix.
};

// What earlier checks of this process saw of the slot.
struct SlotHistory {
  bool seen = false;   // The slot existed at some earlier check.
  Lsn last_confirmed;  // Its confirmed_flush_lsn then.
};

// The safe_wal_size threshold in bytes: `configured_bytes` when set (>= 0), else 1 GiB capped
// at a quarter of max_slot_wal_keep_size (`limit_mb`, -1 = unlimited), so a small cap does not
// keep a caught-up slot (whose safe_wal_size is about the cap) at risk for good.
int64_t EffectiveMinSafeWal(int64_t configured_bytes, int64_t limit_mb);

// Judges `state` of `policy.slot`. A slot missing now that `history` saw was dropped under
// outboxd: that is lost too (outboxd never silently recreates it).
SlotVerdict JudgeSlot(const SlotState& state, const SlotPolicy& policy, const SlotHistory& history);

// What was lost and what to do about it, for the ERROR line and the exit-6 status of a slot in
// `state` with wal_status = lost (or, if !state.exists, dropped; `last_confirmed` is then its
// confirmed position when last seen).
std::string LostSlotMessage(std::string_view slot, const SlotState& state,
                            Lsn last_confirmed = Lsn());

// "12.5 MiB" (negative past the limit), or "unlimited" for nullopt: how sizes are printed.
std::string FormatWalSize(std::optional<int64_t> bytes);

}  // namespace outboxd::pg
