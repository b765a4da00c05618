#pragma once
// Changing [postgres] parallel_slots (resharding) without loss or reordering (DESIGN.md
// section 8, docs/operating.md "Resharding").
//
// A slot family is a base name and a count: slot "<base>" for 1, "<base>_0".."<base>_<count-1>"
// otherwise, with publications named alike. A hop moves streaming from a source family to a
// target family of other names at a cut L in the WAL:
//   1. the targets' publications, then their slots, are created; L is the newest of the slots'
//      consistent points, and every target slot is advanced to L, so Postgres itself skips for
//      them each transaction whose commit record starts before L;
//   2. the sources publish exactly the transactions whose commit record starts before L, wait
//      for Kafka's acknowledgements, and stop (relay: RelayContext::stop_at);
//   3. the sources are dropped, and only then does the target family stream.
// So every event of an aggregate before L is in Kafka before any after L is published, and each
// transaction goes out from one side only. A transaction a target decodes started after its
// publication existed: creating a slot waits for the transactions running when it began.
//
// Slot names cannot change and the two families of a hop must differ, so N -> M takes two hops:
// the configured family to the transit family "<slot>_reshard" of M, then back to "<slot>" of
// M. Each step is durable in the catalog, and targets are created highest index first and
// sources dropped lowest index first, so an interrupted family never looks complete: the next
// start reads where a crash left off (PlanReshardStep) and goes on.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/types.h"
#include "pg/connection.h"

namespace outboxd::pg {

struct SlotFamily {
  std::string slot;         // Base slot name.
  std::string publication;  // Base publication name.
  int count = 1;
  friend bool operator==(const SlotFamily&, const SlotFamily&) = default;
};

// The names of the family's slots (or publications), index 0 first.
std::vector<std::string> FamilySlots(const SlotFamily& family);
std::vector<std::string> FamilyPublications(const SlotFamily& family);

// The transit family's base name for a configured base.
std::string TransitName(std::string_view base);

struct ReshardHop {
  SlotFamily source;
  SlotFamily target;
};

// What to do next to reach the configured family: drop the slots in `drop` (in order; leftovers
// of an interrupted hop, which either never streamed or had finished), then run `hop` if set.
// Neither: nothing to reshard.
struct ReshardStep {
  std::vector<std::string> drop;
  std::optional<ReshardHop> hop;
};

// Pure: the next step for `configured` (its slot, publication and parallel_slots) given the
// slots that exist of its family and of its transit family (`existing`, other names ignored).
// FailedPrecondition naming the slots and the fix for a state no interrupted hop leaves.
absl::StatusOr<ReshardStep> PlanReshardStep(const SlotFamily& configured,
                                            const std::vector<std::string>& existing);

// The slots of `configured`'s family and transit family that exist on `conn`.
absl::StatusOr<std::vector<std::string>> ListReshardSlots(Connection& conn,
                                                          const SlotFamily& configured);

// Step 1 on `conn` (an ordinary SQL session) once the target slots exist: advances every one to
// the newest consistent point among them and returns it, the cut L. Idempotent.
absl::StatusOr<Lsn> AdvanceToCut(Connection& conn, const SlotFamily& target);

// Drops the publications of `family` that exist: a target's stale ones before set-up creates
// them anew with the target's row filters (none of its slots exists, so nothing streams them),
// and a source's once its slots are gone.
absl::Status DropPublications(Connection& conn, const SlotFamily& family);

// Step 3: drops `slots` in order, each once its walsender has let go of it (Unavailable after
// 10 s: another process streams it).
absl::Status DropSlots(Connection& conn, const std::vector<std::string>& slots);

}  // namespace outboxd::pg
