// Mapper's dead-letter records: what carries an unmappable or undeliverable row or logical
// message to the dead-letter topic, so that bad rows never block the stream and are never lost
// (invariant 7).

#include <array>
#include <iterator>

#include "fmt/format.h"
#include "outbox/mapper.h"

namespace outboxd::outbox {
namespace {

using internal::TextOrNull;

// Starts the dead-letter record in `out`: dead_letter_topic, no key, value or headers. Fills
// owned_headers with `reason`, what `append_where` appends (the table or message), source.lsn
// and source.xid, and returns the four header values, taken once it is complete (appending
// may move its buffer).
template <typename AppendWhere>
std::array<Header, 4> StartDeadLetter(const config::OutboxConfig& cfg, std::string_view reason,
                                      AppendWhere&& append_where, const EventSource& source,
                                      OutboxEvent& out) {
  out.topic.assign(cfg.dead_letter_topic);
  out.key.reset();
  out.value.reset();
  out.ClearHeaders();
  out.owned_value.clear();
  std::string& owned = out.owned_headers;
  owned.assign(reason);
  const size_t where_at = owned.size();
  append_where(owned);
  const size_t lsn_at = owned.size();
  owned.append(source.lsn.ToString());
  const size_t xid_at = owned.size();
  fmt::format_to(std::back_inserter(owned), "{}", source.xid.value);
  const std::string_view all = owned;
  return {Header{kErrorHeader, all.substr(0, where_at)},
          Header{kTableHeader, all.substr(where_at, lsn_at - where_at)},
          Header{kLsnHeader, all.substr(lsn_at, xid_at - lsn_at)},
          Header{kXidHeader, all.substr(xid_at)}};
}

void FinishDeadLetter(const std::array<Header, 4>& headers, OutboxEvent& out) {
  out.headers.insert(out.headers.end(), headers.begin(), headers.end());
}

}  // namespace

absl::Status Mapper::MapDeadLetter(const pgoutput::Insert& insert, const EventSource& source,
                                   std::string_view reason, OutboxEvent& out) {
  auto it = relations_.find(insert.relation);
  const std::array<Header, 4> headers = StartDeadLetter(
      cfg_, reason,
      [&](std::string& owned) {
        if (it != relations_.end()) {
          owned.append(it->second.table);
        } else {
          fmt::format_to(std::back_inserter(owned), "relation {}", insert.relation.value);
        }
      },
      source, out);
  if (it != relations_.end()) {
    const internal::RelationLayout& layout = it->second;
    if (auto s = ReadColumns(layout, insert); !s.ok()) return s;
    const std::optional<std::string_view> id = TextOrNull(Value(layout.id));
    if (id) out.headers.push_back(Header{"id", id});
    out.key = TextOrNull(Value(layout.aggregate_id));
    out.value = TextOrNull(Value(layout.payload));  // As stored: bytea stays in \x form.
  }
  FinishDeadLetter(headers, out);
  return absl::OkStatus();
}

void Mapper::MapMessageDeadLetter(const pgoutput::LogicalMessage& message,
                                  const EventSource& source, std::string_view reason,
                                  OutboxEvent& out) {
  const std::array<Header, 4> headers = StartDeadLetter(
      cfg_, reason,
      [&](std::string& owned) {
        fmt::format_to(std::back_inserter(owned), "logical message with prefix {}", message.prefix);
      },
      source, out);
  out.value = message.content;  // As emitted, so nothing is lost.
  // The id and key when the content parses far enough to name them.
  if (message_fields_.Parse(message.content, message_names_, values_).ok()) {
    const std::optional<std::string_view> id = TextOrNull(Value(message_layout_.id));
    if (id) out.headers.push_back(Header{"id", id});
    out.key = TextOrNull(Value(message_layout_.aggregate_id));
  }
  FinishDeadLetter(headers, out);
}

}  // namespace outboxd::outbox
