#pragma once
// The bridge between the catalog (pg::TableInfo) and the mapping check (outbox/mapping_check.h),
// which knows nothing of Postgres connections; used by `check` and by `run`'s start-up.

#include <vector>

#include "outbox/mapping_check.h"
#include "pg/catalog.h"

namespace outboxd::relay {

inline std::vector<outbox::CatalogColumn> CatalogColumnsOf(const pg::TableInfo& info) {
  std::vector<outbox::CatalogColumn> columns;
  for (size_t i = 0; i < info.columns.size(); ++i) {
    columns.push_back({.name = info.columns[i],
                       .type_oid = i < info.type_oids.size() ? info.type_oids[i] : 0,
                       .type_name = i < info.type_names.size() ? info.type_names[i] : ""});
  }
  return columns;
}

}  // namespace outboxd::relay
