#pragma once
// Strong types for the protocol scalars shared by every module.

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace outboxd {

// A WAL position (Postgres XLogRecPtr). Prints as "X/X" like Postgres does.
class Lsn {
 public:
  constexpr Lsn() = default;
  constexpr explicit Lsn(uint64_t value) : value_(value) {}

  constexpr uint64_t value() const { return value_; }
  constexpr bool IsValid() const { return value_ != 0; }
  // clang-tidy reads the defaulted <=>'s comparison with 0 as a null pointer constant.
  constexpr auto operator<=>(const Lsn&) const = default;  // NOLINT(modernize-use-nullptr)

  // "16/B374D848" form, as pg_current_wal_lsn() prints it.
  std::string ToString() const;
  // Parses the "X/X" form; nullopt when `text` is not one.
  static std::optional<Lsn> Parse(std::string_view text);

 private:
  uint64_t value_ = 0;
};

// A transaction id as pgoutput sends it (32-bit, no epoch).
struct Xid {
  uint32_t value = 0;
  constexpr auto operator<=>(const Xid&) const = default;
};

// A table's OID, the key pgoutput uses for Relation/Insert messages.
struct RelationId {
  uint32_t value = 0;
  constexpr auto operator<=>(const RelationId&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, RelationId id) {
    return H::combine(std::move(h), id.value);
  }
};

}  // namespace outboxd
