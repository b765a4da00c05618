#include "outbox/mapping_check.h"

#include <algorithm>

#include "fmt/format.h"
#include "outbox/relation_layout.h"

namespace outboxd::outbox {
namespace {

using config::ContractColumn;
using config::Format;

const CatalogColumn* Find(const std::vector<CatalogColumn>& columns, std::string_view name) {
  auto it = std::find_if(columns.begin(), columns.end(),
                         [&](const CatalogColumn& c) { return c.name == name; });
  return it == columns.end() ? nullptr : &*it;
}

struct Mapped {
  std::string_view key;
  const ContractColumn* column;
};

}  // namespace

bool MappingNeedsCatalog(const config::OutboxConfig& cfg) {
  return cfg.format != Format::kRaw || cfg.traceparent_column.required ||
         cfg.tracestate_column.required;
}

std::optional<CheckResult> CheckMapping(const config::OutboxConfig& cfg, std::string_view table,
                                        const std::vector<CatalogColumn>& columns) {
  const std::string name = fmt::format("mapping of {}", table);
  std::vector<Mapped> mapped = {{"traceparent_column", &cfg.traceparent_column},
                                {"tracestate_column", &cfg.tracestate_column}};
  if (cfg.format != Format::kRaw) {
    mapped.insert(mapped.end(), {{"type_column", &cfg.type_column},
                                 {"occurred_at_column", &cfg.occurred_at_column},
                                 {"correlation_id_column", &cfg.correlation_id_column},
                                 {"causation_id_column", &cfg.causation_id_column},
                                 {"content_type_column", &cfg.content_type_column}});
  }
  for (const Mapped& m : mapped) {
    if (!m.column->required || Find(columns, m.column->name) != nullptr) continue;
    return Fail(name,
                fmt::format("[outbox] {} = \"{}\" names a column that table {} does not have",
                            m.key, m.column->name, table),
                fmt::format("add the column to {}, set {} to a column it has, or remove the key "
                            "(a column left at its default name may be absent)",
                            table, m.key));
  }
  if (cfg.format == Format::kCloudEvents && Find(columns, cfg.type_column.name) == nullptr) {
    return Fail(name,
                fmt::format("format = \"cloudevents\" needs an event type (ce_type), and table "
                            "{} has no column \"{}\" (type_column)",
                            table, cfg.type_column.name),
                fmt::format("add a type column to {} or set [outbox] type_column to the column "
                            "holding the event type",
                            table));
  }
  if (cfg.format != Format::kRaw) {
    const CatalogColumn* occurred = Find(columns, cfg.occurred_at_column.name);
    if (occurred != nullptr && occurred->type_oid != internal::kTimestamptzOid &&
        occurred->type_oid != internal::kTimestampOid) {
      return Fail(name,
                  fmt::format("column {} of {} (occurred_at_column) is of type {}, which cannot "
                              "carry a timestamp",
                              occurred->name, table, occurred->type_name),
                  fmt::format("make it timestamptz (ALTER TABLE {} ALTER COLUMN {} TYPE "
                              "timestamptz USING ...), or set occurred_at_column to a "
                              "timestamptz or timestamp column",
                              table, occurred->name));
    }
  }
  return std::nullopt;
}

absl::Status MappingError(const CheckResult& failure) {
  return absl::FailedPreconditionError(
      fmt::format("{}: {}; {}", failure.name, failure.detail, failure.fix));
}

}  // namespace outboxd::outbox
