#pragma once
// Reads outboxd's status server ([http] listen) the way Prometheus and a kubelet would.

#include <map>
#include <string>

#include "absl/status/statusor.h"

namespace outboxd::it {

// A port on 127.0.0.1 that was free a moment ago (bound to port 0, then closed).
absl::StatusOr<int> FreeLocalPort();

struct HttpAnswer {
  int status = 0;
  std::string body;
  std::string content_type;
};

// GET http://127.0.0.1:<port><path>. Unavailable when nothing answers.
absl::StatusOr<HttpAnswer> HttpGet(int port, const std::string& path);

// The samples of a Prometheus text page keyed as written, `name{labels}` or `name`; comment
// lines skipped. InvalidArgument on a line that is not `key value`.
absl::StatusOr<std::map<std::string, double>> ParseSamples(const std::string& text);

// The key ParseSamples gives the sample of per-slot metric `name` for `slot`:
// `name{slot="<slot>"}` (slot names need no escaping).
std::string SlotSample(const std::string& name, const std::string& slot);
// The samples of per-slot metric `name` (carrying only the `slot` label), by slot name.
std::map<std::string, double> SamplesBySlot(const std::map<std::string, double>& samples,
                                            const std::string& name);

}  // namespace outboxd::it
