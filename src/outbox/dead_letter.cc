// Mapper::MapDeadLetter: the record that carries an unmappable or undeliverable row to the
// dead-letter topic, so that bad rows never block the stream and are never lost (invariant 7).

#include <iterator>

#include "fmt/format.h"
#include "outbox/mapper.h"

namespace outboxd::outbox {
namespace {

using pgoutput::ColumnKind;
using pgoutput::ColumnValue;

std::optional<std::string_view> TextOrNull(const ColumnValue& value) {
  if (value.kind != ColumnKind::kText) return std::nullopt;
  return value.data;
}

}  // namespace

absl::Status Mapper::MapDeadLetter(const pgoutput::Insert& insert, std::string_view reason, Lsn lsn,
                                   Xid xid, OutboxEvent& out) {
  out.topic.assign(cfg_.dead_letter_topic);
  out.key.reset();
  out.value.reset();
  // erase, not clear: InlinedVector::clear frees a spilled buffer that the next row needs.
  out.headers.erase(out.headers.begin(), out.headers.end());
  out.owned_value.clear();

  // Fill owned_headers completely before taking views: appending may move its buffer.
  std::string& owned = out.owned_headers;
  owned.assign(reason);
  const size_t table_at = owned.size();
  auto it = relations_.find(insert.relation);
  if (it != relations_.end()) {
    owned.append(it->second.table);
  } else {
    fmt::format_to(std::back_inserter(owned), "relation {}", insert.relation.value);
  }
  const size_t lsn_at = owned.size();
  owned.append(lsn.ToString());
  const size_t xid_at = owned.size();
  fmt::format_to(std::back_inserter(owned), "{}", xid.value);
  const std::string_view all = owned;

  if (it != relations_.end()) {
    const internal::RelationLayout& layout = it->second;
    if (auto s = ReadColumns(layout, insert); !s.ok()) return s;
    const std::optional<std::string_view> id = TextOrNull(Value(layout.id));
    if (id) out.headers.push_back(Header{"id", id});
    out.key = TextOrNull(Value(layout.aggregate_id));
    out.value = TextOrNull(Value(layout.payload));  // As stored: bytea stays in \x form.
  }
  out.headers.push_back(Header{kErrorHeader, all.substr(0, table_at)});
  out.headers.push_back(Header{kTableHeader, all.substr(table_at, lsn_at - table_at)});
  out.headers.push_back(Header{kLsnHeader, all.substr(lsn_at, xid_at - lsn_at)});
  out.headers.push_back(Header{kXidHeader, all.substr(xid_at)});
  return absl::OkStatus();
}

}  // namespace outboxd::outbox
