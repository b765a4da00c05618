#include "pg/reshard.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "common/log.h"
#include "common/strings.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "pg/partition.h"

namespace outboxd::pg {
namespace {

// What exists of one family: nothing, all of a count, or something else (an interrupted hop).
struct Presence {
  std::vector<std::string> slots;  // Sorted.
  int complete_count = 0;          // > 0 when `slots` is exactly a family of that count.
  bool none() const { return slots.empty(); }
  bool partial() const { return !slots.empty() && complete_count == 0; }
};

// True for "<base>_<digits>".
bool IsMember(std::string_view base, std::string_view name) {
  if (name.size() <= base.size() + 1 || !name.starts_with(base) || name[base.size()] != '_') {
    return false;
  }
  const std::string_view digits = name.substr(base.size() + 1);
  return std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

Presence PresenceOf(std::string_view base, const std::vector<std::string>& existing) {
  Presence out;
  for (const std::string& name : existing) {
    if (name == base || IsMember(base, name)) out.slots.push_back(name);
  }
  std::sort(out.slots.begin(), out.slots.end());
  for (int count = 1; count <= static_cast<int>(out.slots.size()) && out.complete_count == 0;
       ++count) {
    std::vector<std::string> family =
        FamilySlots({.slot = std::string(base), .publication = {}, .count = count});
    std::sort(family.begin(), family.end());
    if (family == out.slots) out.complete_count = count;
  }
  return out;
}

// Lowest index first, so that what remains of a family being dropped never looks complete.
std::vector<std::string> InDropOrder(std::string_view base, std::vector<std::string> slots) {
  auto index = [base](const std::string& name) {
    return name == base ? -1L : std::strtol(name.c_str() + base.size() + 1, nullptr, 10);
  };
  std::sort(slots.begin(), slots.end(),
            [&](const std::string& a, const std::string& b) { return index(a) < index(b); });
  return slots;
}

// The walsender of a stream that just ended exits a moment after its client: a slot it still
// holds cannot be dropped yet.
absl::Status WaitUntilInactive(Connection& conn, std::string_view slot) {
  constexpr auto kPatience = std::chrono::seconds(10);
  const auto until = std::chrono::steady_clock::now() + kPatience;
  while (true) {
    auto r = conn.Query(Concat("SELECT active_pid FROM pg_catalog.pg_replication_slots WHERE "
                               "slot_name = ",
                               conn.QuoteLiteral(slot), " AND active"),
                        "waiting for a slot to be released");
    if (!r.ok()) return r.status();
    if (PQntuples(r->get()) == 0) return absl::OkStatus();
    if (std::chrono::steady_clock::now() >= until) {
      return absl::UnavailableError(fmt::format(
          "replication slot {} is still streamed by PID {} {} s after resharding ended its "
          "stream: is another outboxd running on it? Stop it",
          slot, Value(r->get(), 0, 0), kPatience.count()));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace

std::vector<std::string> FamilySlots(const SlotFamily& family) {
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(family.count));
  for (int i = 0; i < family.count; ++i) out.push_back(MemberName(family.slot, family.count, i));
  return out;
}

std::vector<std::string> FamilyPublications(const SlotFamily& family) {
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(family.count));
  for (int i = 0; i < family.count; ++i) {
    out.push_back(MemberName(family.publication, family.count, i));
  }
  return out;
}

std::string TransitName(std::string_view base) { return Concat(base, "_reshard"); }

absl::StatusOr<ReshardStep> PlanReshardStep(const SlotFamily& configured,
                                            const std::vector<std::string>& existing) {
  const SlotFamily transit_base{.slot = TransitName(configured.slot),
                                .publication = TransitName(configured.publication),
                                .count = configured.count};
  // "<slot>_reshard_0" is no member of "<slot>" ("reshard_0" is not digits): the two apart.
  const Presence home = PresenceOf(configured.slot, existing);
  const Presence transit = PresenceOf(transit_base.slot, existing);
  auto family = [](const SlotFamily& base, int count) {
    SlotFamily out = base;
    out.count = count;
    return out;
  };
  ReshardStep step;
  if (transit.none()) {
    // Nothing in transit: reshard when the configured family exists with another count. A
    // partial family is judged by set-up (pg::CheckSlotFamily), as before resharding existed.
    if (home.complete_count > 0 && home.complete_count != configured.count) {
      step.hop =
          ReshardHop{.source = family(configured, home.complete_count), .target = transit_base};
    }
    return step;
  }
  if (transit.partial()) {
    // Either targets being created (never streamed) or sources being dropped (finished): with
    // the configured family complete, both are safe to drop.
    if (home.complete_count == 0) {
      return absl::FailedPreconditionError(fmt::format(
          "replication slots {} and {} are what no interrupted resharding leaves; find out which "
          "family holds events not yet in Kafka, then drop the others "
          "(SELECT pg_drop_replication_slot('<name>')) and start again",
          fmt::join(home.slots, ", "), fmt::join(transit.slots, ", ")));
    }
    step.drop = InDropOrder(transit_base.slot, transit.slots);
    return step;
  }
  const int k = transit.complete_count;
  if (home.complete_count > 0 && home.complete_count != k) {
    // First hop interrupted after its targets were all created: go on with it.
    step.hop = ReshardHop{.source = family(configured, home.complete_count),
                          .target = family(transit_base, k)};
    return step;
  }
  if (home.complete_count == k) {
    // Second hop interrupted after its targets were all created.
    step.hop = ReshardHop{.source = family(transit_base, k), .target = family(configured, k)};
    return step;
  }
  // The configured family is gone or partial (sources of the first hop being dropped, or
  // targets of the second being created): drop what is left, then the second hop.
  step.drop = InDropOrder(configured.slot, home.slots);
  step.hop = ReshardHop{.source = family(transit_base, k), .target = configured};
  return step;
}

absl::StatusOr<std::vector<std::string>> ListReshardSlots(Connection& conn,
                                                          const SlotFamily& configured) {
  // Slot names are [a-z0-9_] (config), so the base needs no escaping inside the pattern.
  auto result =
      conn.Query(Concat("SELECT slot_name FROM pg_catalog.pg_replication_slots WHERE slot_name ~ ",
                        conn.QuoteLiteral(Concat("^", configured.slot, "(_reshard)?(_[0-9]+)?$"))),
                 "listing the slots of a resharding");
  if (!result.ok()) return result.status();
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(PQntuples(result->get())));
  for (int i = 0; i < PQntuples(result->get()); ++i) out.emplace_back(Value(result->get(), i, 0));
  return out;
}

absl::StatusOr<Lsn> AdvanceToCut(Connection& conn, const SlotFamily& target) {
  Lsn cut;
  const std::vector<std::string> slots = FamilySlots(target);
  std::vector<Lsn> confirmed;
  for (const std::string& slot : slots) {
    auto r = conn.Query(Concat("SELECT confirmed_flush_lsn FROM pg_catalog.pg_replication_slots "
                               "WHERE slot_name = ",
                               conn.QuoteLiteral(slot)),
                        "reading a new slot's consistent point");
    if (!r.ok()) return r.status();
    std::optional<Lsn> lsn;
    if (PQntuples(r->get()) == 1) lsn = Lsn::Parse(Value(r->get(), 0, 0));
    if (!lsn) {
      return absl::UnavailableError(
          Concat("replication slot ", slot, " vanished while resharding; starting again"));
    }
    confirmed.push_back(*lsn);
    cut = std::max(cut, *lsn);
  }
  for (size_t i = 0; i < slots.size(); ++i) {
    if (confirmed[i] >= cut) continue;
    auto r = conn.Query(
        Concat("SELECT pg_catalog.pg_replication_slot_advance(", conn.QuoteLiteral(slots[i]), ", ",
               conn.QuoteLiteral(cut.ToString()), "::pg_lsn)"),
        "advancing a new slot to the resharding cut");
    if (!r.ok()) return r.status();
  }
  return cut;
}

absl::Status DropPublications(Connection& conn, const SlotFamily& family) {
  for (const std::string& publication : FamilyPublications(family)) {
    // Looked up first: DROP PUBLICATION IF EXISTS would print a NOTICE on stderr.
    auto found = conn.Query(Concat("SELECT 1 FROM pg_catalog.pg_publication WHERE pubname = ",
                                   conn.QuoteLiteral(publication)),
                            "looking up a publication of a resharding");
    if (!found.ok()) return found.status();
    if (PQntuples(found->get()) == 0) continue;
    auto r = conn.Query(Concat("DROP PUBLICATION ", conn.QuoteIdentifier(publication)),
                        "dropping a publication of a resharding");
    if (!r.ok()) return r.status();
  }
  return absl::OkStatus();
}

absl::Status DropSlots(Connection& conn, const std::vector<std::string>& slots) {
  for (const std::string& slot : slots) {
    if (auto s = WaitUntilInactive(conn, slot); !s.ok()) return s;
    auto r = conn.Query(Concat("SELECT pg_catalog.pg_drop_replication_slot(slot_name) FROM "
                               "pg_catalog.pg_replication_slots WHERE slot_name = ",
                               conn.QuoteLiteral(slot)),
                        "dropping a replication slot after resharding");
    if (!r.ok()) return r.status();
    log::Info("dropped replication slot {}", slot);
  }
  return absl::OkStatus();
}

}  // namespace outboxd::pg
