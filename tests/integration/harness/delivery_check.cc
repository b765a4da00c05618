#include "harness/delivery_check.h"

#include <algorithm>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace outboxd::it {
namespace {

constexpr size_t kMaxSamples = 10;

struct Expectation {
  const ExpectedEvent* event;
  size_t index_in_aggregate;  // commit order within its key
};

void Sample(DeliveryReport& report, std::string text) {
  if (report.samples.size() < kMaxSamples) report.samples.push_back(std::move(text));
}

}  // namespace

std::string DeliveryReport::Summary() const {
  std::string out =
      absl::StrCat("expected=", expected, " received=", received, " distinct=", distinct,
                   " missing=", missing, " duplicates=", duplicates, " unexpected=", unexpected,
                   " rolled_back_seen=", rolled_back_seen, " wrong_content=", wrong_content,
                   " split_aggregates=", split_aggregates, " order_violations=", order_violations);
  if (!samples.empty()) absl::StrAppend(&out, "\n  ", absl::StrJoin(samples, "\n  "));
  return out;
}

DeliveryReport CheckDelivery(const std::vector<ExpectedEvent>& expected,
                             const std::vector<KafkaRecord>& records,
                             const absl::flat_hash_set<std::string>& rolled_back_ids) {
  DeliveryReport report;
  report.expected = expected.size();
  report.received = records.size();

  absl::flat_hash_map<std::string, Expectation> by_id;
  absl::flat_hash_map<std::string, size_t> per_key_count;
  for (const ExpectedEvent& e : expected) {
    by_id.emplace(e.id, Expectation{&e, per_key_count[e.key]++});
  }

  std::vector<const KafkaRecord*> ordered;
  for (const KafkaRecord& r : records) ordered.push_back(&r);
  std::sort(ordered.begin(), ordered.end(), [](const KafkaRecord* a, const KafkaRecord* b) {
    return std::tie(a->topic, a->partition, a->offset) <
           std::tie(b->topic, b->partition, b->offset);
  });

  absl::flat_hash_set<std::string> seen;
  struct KeyState {
    std::string topic;
    int32_t partition = -1;
    bool split = false;
    size_t last_index = 0;
    bool any = false;
  };
  absl::flat_hash_map<std::string, KeyState> keys;
  for (const KafkaRecord* r : ordered) {
    const std::optional<std::string> id = r->Header("id");
    const std::string where = absl::StrCat(r->topic, "/", r->partition, "@", r->offset);
    if (!id.has_value()) {
      ++report.unexpected;
      Sample(report, absl::StrCat("record without id header at ", where));
      continue;
    }
    auto it = by_id.find(*id);
    if (it == by_id.end()) {
      ++report.unexpected;
      if (rolled_back_ids.contains(*id)) {
        ++report.rolled_back_seen;
        Sample(report, absl::StrCat("rolled-back row ", *id, " published at ", where));
      } else {
        Sample(report, absl::StrCat("unknown id ", *id, " at ", where));
      }
      continue;
    }
    if (!seen.insert(*id).second) {
      ++report.duplicates;
      continue;
    }
    const ExpectedEvent& e = *it->second.event;
    if (r->topic != e.topic || r->key != e.key || r->value != e.value) {
      ++report.wrong_content;
      Sample(report, absl::StrCat("id ", *id, " at ", where, ": got topic=", r->topic, " key=",
                                  r->key.value_or("<null>"), " value=", r->value.value_or("<null>"),
                                  "; want topic=", e.topic, " key=", e.key, " value=", e.value));
    }
    KeyState& k = keys[e.key];
    if (!k.any) {
      k.topic = r->topic;
      k.partition = r->partition;
    } else {
      if ((k.topic != r->topic || k.partition != r->partition) && !k.split) {
        k.split = true;
        ++report.split_aggregates;
        Sample(report, absl::StrCat("aggregate ", e.key, " on ", k.topic, "/", k.partition, " and ",
                                    r->topic, "/", r->partition));
      }
      if (it->second.index_in_aggregate < k.last_index) {
        ++report.order_violations;
        Sample(report, absl::StrCat("aggregate ", e.key, ": event #", it->second.index_in_aggregate,
                                    " (id ", *id, ") at ", where, " after event #", k.last_index));
      }
    }
    k.any = true;
    k.last_index = std::max(k.last_index, it->second.index_in_aggregate);
  }
  report.distinct = seen.size();
  report.missing = expected.size() - seen.size();
  if (report.missing > 0) {
    for (const ExpectedEvent& e : expected) {
      if (!seen.contains(e.id)) {
        Sample(report, absl::StrCat("missing id ", e.id, " key ", e.key, " topic ", e.topic));
        break;
      }
    }
  }
  return report;
}

}  // namespace outboxd::it
