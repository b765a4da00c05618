// outboxd-example-consumer: the idempotent-consumer side of the outbox pattern (README.md).
// Each record is decoded as an outboxd.v1.Event, applied in one Postgres transaction that
// deduplicates by event id (inbox.cc) with the projection as business write (totals.cc), and
// only then is its offset committed (inbox_loop.cc, offsets.cc).

#include <csignal>
#include <cstdio>
#include <memory>
#include <string>

#include "inbox.h"
#include "inbox_loop.h"
#include "options.h"
#include "totals.h"

namespace consumer {
namespace {

volatile std::sig_atomic_t g_stop = 0;
void OnSignal(int) { g_stop = 1; }

int Run(const Options& options) {
  std::string error;
  const InboxSettings inbox_settings{
      options.postgres,
      "outboxd-example-consumer",
      {"aggregate_totals"},
      "psql CONNINFO -f examples/consumer/inbox.sql -f examples/consumer/schema.sql"};
  std::unique_ptr<Inbox> inbox = Inbox::Connect(inbox_settings, error);
  if (inbox == nullptr) {
    std::fprintf(stderr, "consumer: ERROR %s\n", error.c_str());
    return kExitUsage;
  }
  const LoopSettings loop{"consumer",     options.brokers,          options.group,
                          options.topics, options.kafka_properties, options.commit_interval_ms};
  return RunInboxLoop(loop, *inbox, ApplyTotals, g_stop);
}

}  // namespace
}  // namespace consumer

int main(int argc, char** argv) {
  std::string error;
  const std::optional<consumer::Options> options = consumer::ParseOptions(argc, argv, error);
  if (!options.has_value()) {
    std::fprintf(stderr, "outboxd-example-consumer: %s\n%s", error.c_str(), consumer::kUsage);
    return consumer::kExitUsage;
  }
  if (options->help) {
    std::fputs(consumer::kUsage, stdout);
    return consumer::kExitOk;
  }
  std::signal(SIGTERM, consumer::OnSignal);
  std::signal(SIGINT, consumer::OnSignal);
  return consumer::Run(*options);
}
