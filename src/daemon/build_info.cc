#include "daemon/build_info.h"

#include <utility>

#include "common/strings.h"
#include "kafka/client.h"
#include "pg/connection.h"
#include "simdjson.h"

namespace outboxd::daemon {

metrics::BuildInfo CurrentBuild(std::string version, std::string commit) {
  return {.version = std::move(version),
          .commit = std::move(commit),
          .librdkafka = kafka::LibraryVersion(),
          .libpq = pg::LibraryVersion(),
          .simdjson = Concat(static_cast<int>(simdjson::SIMDJSON_VERSION_MAJOR), ".",
                             static_cast<int>(simdjson::SIMDJSON_VERSION_MINOR), ".",
                             static_cast<int>(simdjson::SIMDJSON_VERSION_REVISION))};
}

std::string VersionText(const metrics::BuildInfo& build) {
  return Concat("outboxd ", build.version, " (commit ", build.commit, ")\nlibrdkafka ",
                build.librdkafka, "\nlibpq ", build.libpq, "\nsimdjson ", build.simdjson, "\n");
}

}  // namespace outboxd::daemon
