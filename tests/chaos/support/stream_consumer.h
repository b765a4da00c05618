#pragma once
// Reads whole topics without keeping the records: each one is handed to a callback. For the
// resource tests, whose topics hold a million records or 500 MB.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace outboxd::chaos {

struct StreamedRecord {
  std::string_view topic;
  int32_t partition = 0;
  int64_t offset = 0;
  std::optional<std::string_view> key;
  std::optional<std::string_view> value;
  std::optional<std::string_view> id;  // header "id"
};

// Reads every partition of `topics` (which must exist) from the beginning, calling `on_record`
// for each record in partition order, until at least `min_records` arrived and every partition
// is at its end, or until `timeout`. Returns the number of records read.
absl::StatusOr<int64_t> StreamTopics(const std::string& bootstrap,
                                     const std::vector<std::string>& topics, int64_t min_records,
                                     absl::Duration timeout,
                                     const std::function<void(const StreamedRecord&)>& on_record);

}  // namespace outboxd::chaos
