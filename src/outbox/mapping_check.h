#pragma once
// The start-up check of the event contract's column mapping against an outbox table's
// catalog entry, shared by `outboxd check` (a FAIL line) and `outboxd run` (which refuses to
// start): a mapped column set explicitly that the table lacks, occurred_at on a type that
// cannot carry a timestamp, or CloudEvents without a type column. Pure.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "common/check_result.h"
#include "config/config.h"

namespace outboxd::outbox {

struct CatalogColumn {
  std::string name;
  uint32_t type_oid = 0;
  std::string type_name;  // format_type(), e.g. "timestamp with time zone", for messages.
};

// Whether `run` must read the catalog for CheckMapping: a contract format, or a trace column
// set explicitly.
bool MappingNeedsCatalog(const config::OutboxConfig& cfg);

// nullopt when `table` ("schema.table") can carry the mapping; else a FAIL naming the column,
// the table and the fix.
std::optional<CheckResult> CheckMapping(const config::OutboxConfig& cfg, std::string_view table,
                                        const std::vector<CatalogColumn>& columns);

// A FAIL as `run` reports it: FailedPrecondition (exit code 3, a server-side setup problem).
absl::Status MappingError(const CheckResult& failure);

}  // namespace outboxd::outbox
