// outboxd-example-saga: the three services of the order saga (README.md) and the tool that
// places orders, in one binary so that the example stays small; each service runs as its own
// process, with its own schema, outbox and consumer group.

#include <libpq-fe.h>

#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "inbox.h"
#include "inbox_loop.h"
#include "messages.h"
#include "orchestrator.h"
#include "participants.h"
#include "pg_result.h"

namespace saga {
namespace {

using consumer::ApplyOutcome;
using consumer::ApplyResult;

constexpr char kUsage[] =
    "usage: outboxd-example-saga order|stock|payment --brokers HOST:PORT --postgres CONNINFO\n"
    "           [--topic-prefix PREFIX] [--step-timeout-ms MS] [--max-attempts N]\n"
    "           [-X librdkafka.property=value]...\n"
    "       outboxd-example-saga place --postgres CONNINFO --orders N [--first I]\n"
    "           [--per-second R]\n"
    "Runs one service of the order saga (examples/saga/README.md) until SIGTERM/SIGINT, or\n"
    "places orders I..I+N-1. CONNINFO's search_path names the service's schema.\n";

volatile std::sig_atomic_t g_stop = 0;
void OnSignal(int) { g_stop = 1; }

struct Options {
  std::string role;  // order, stock, payment or place
  std::string brokers, postgres, topic_prefix = "saga";
  SagaSettings saga;
  std::vector<std::pair<std::string, std::string>> kafka_properties;
  int orders = 0, first = 0, per_second = 0;  // place: 0 per second = as fast as possible
};

bool ParseInt(std::string_view text, int& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && out >= 0;
}

// Sets `error` to `message`; the one way Parse fails.
std::nullopt_t Refuse(std::string& error, std::string message) {
  error = std::move(message);
  return std::nullopt;
}

// nullopt and `error` naming the argument on a bad command line.
std::optional<Options> Parse(int argc, char** argv, std::string& error) {
  Options o;
  if (argc < 2) return Refuse(error, "missing the service");
  o.role = argv[1];
  if (o.role != "order" && o.role != "stock" && o.role != "payment" && o.role != "place") {
    return Refuse(error, "unknown service \"" + o.role + "\"");
  }
  for (int i = 2; i < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) return Refuse(error, std::string(flag) + " needs a value");
    const std::string value = argv[i + 1];
    std::string* text = flag == "--brokers"        ? &o.brokers
                        : flag == "--postgres"     ? &o.postgres
                        : flag == "--topic-prefix" ? &o.topic_prefix
                                                   : nullptr;
    int* number = flag == "--step-timeout-ms" ? &o.saga.step_timeout_ms
                  : flag == "--max-attempts"  ? &o.saga.max_attempts
                  : flag == "--orders"        ? &o.orders
                  : flag == "--first"         ? &o.first
                  : flag == "--per-second"    ? &o.per_second
                                              : nullptr;
    if (text != nullptr) {
      *text = value;
    } else if (number != nullptr) {
      if (!ParseInt(value, *number)) {
        return Refuse(error, std::string(flag) + " needs a number, not \"" + value + "\"");
      }
    } else if (flag == "-X" && value.find('=') != std::string::npos) {
      const size_t eq = value.find('=');
      o.kafka_properties.emplace_back(value.substr(0, eq), value.substr(eq + 1));
    } else {
      return Refuse(error, "unknown argument \"" + std::string(flag) + "\"");
    }
  }
  if (o.saga.step_timeout_ms == 0 || o.saga.max_attempts == 0) {
    return Refuse(error, "--step-timeout-ms and --max-attempts must be positive");
  }
  if (o.postgres.empty()) return Refuse(error, "missing --postgres");
  if (o.role != "place" && o.brokers.empty()) return Refuse(error, "missing --brokers");
  return o;
}

// A second connection of the orchestrator's, for its deadlines; reconnects when lost.
class DeadlineTimer {
 public:
  DeadlineTimer(const std::string& conninfo, const SagaSettings& settings)
      : conn_(PQconnectdb(conninfo.c_str())), settings_(settings) {}
  ~DeadlineTimer() { PQfinish(conn_); }
  DeadlineTimer(const DeadlineTimer&) = delete;
  DeadlineTimer& operator=(const DeadlineTimer&) = delete;

  // Runs on the poll loop's thread between polls; does the work at most every 250 ms.
  void MaybeRun() {
    const auto now = std::chrono::steady_clock::now();
    if (now < next_) return;
    next_ = now + std::chrono::milliseconds(250);
    if (PQstatus(conn_) != CONNECTION_OK) PQreset(conn_);
    int advanced = 0;
    const ApplyOutcome outcome = ExpireDeadlines(conn_, settings_, advanced);
    if (outcome.result != ApplyResult::kApplied) {
      std::fprintf(stderr, "order: WARN deadlines: %s; trying again\n", outcome.error.c_str());
    } else if (advanced > 0) {
      std::fprintf(stderr, "order: INFO %d sagas past their deadline sent again or compensated\n",
                   advanced);
    }
  }

 private:
  PGconn* conn_;
  const SagaSettings& settings_;
  std::chrono::steady_clock::time_point next_{};
};

// Runs one service: its inbox, its topics, its business write.
int RunService(const Options& o) {
  const std::string schema_hint =
      "psql CONNINFO -f examples/consumer/inbox.sql -f "
      "examples/saga/outbox.sql -f examples/saga/" +
      (o.role == "order" ? std::string("orders") : o.role) + ".sql";
  consumer::InboxSettings inbox_settings{o.postgres, "saga-" + o.role, {"outbox"}, schema_hint};
  consumer::LoopSettings loop{o.role, o.brokers, o.topic_prefix + "." + o.role, {}, {}, 200};
  // Static membership: a restarted service takes its partitions back at once, instead of the
  // group waiting for the killed one's session to time out. A service may start before the
  // topics it reads exist (they appear with the first outbox row): look for them every second,
  // not every 5 min (librdkafka's default), or the first replies wait past their deadline.
  // -X overrides both.
  loop.kafka_properties = {{"group.instance.id", loop.group + ".1"},
                           {"topic.metadata.refresh.interval.ms", "1000"}};
  loop.kafka_properties.insert(loop.kafka_properties.end(), o.kafka_properties.begin(),
                               o.kafka_properties.end());
  consumer::BusinessWrite write;
  std::unique_ptr<DeadlineTimer> timer;
  if (o.role == "order") {
    inbox_settings.business_tables.emplace_back("orders");
    loop.topics = {o.topic_prefix + "." + kStockReply, o.topic_prefix + "." + kPaymentReply};
    write = [&o](PGconn* conn, const outboxd::v1::Event& e) { return OnReply(conn, e, o.saga); };
    timer = std::make_unique<DeadlineTimer>(o.postgres, o.saga);
  } else if (o.role == "stock") {
    inbox_settings.business_tables.insert(inbox_settings.business_tables.end(),
                                          {"stock", "reservations"});
    loop.topics = {o.topic_prefix + "." + kStockCommand};
    write = HandleStockCommand;
  } else {
    inbox_settings.business_tables.insert(inbox_settings.business_tables.end(),
                                          {"payments", "ledger"});
    loop.topics = {o.topic_prefix + "." + kPaymentCommand};
    write = HandlePaymentCommand;
  }
  std::string error;
  std::unique_ptr<consumer::Inbox> inbox = consumer::Inbox::Connect(inbox_settings, error);
  if (inbox == nullptr) {
    std::fprintf(stderr, "%s: ERROR %s\n", o.role.c_str(), error.c_str());
    return consumer::kExitUsage;
  }
  return consumer::RunInboxLoop(loop, *inbox, write, g_stop, [&timer] {
    if (timer != nullptr) timer->MaybeRun();
  });
}

// Places orders first..first+orders-1, each retried until it commits (Postgres may restart).
int Place(const Options& o) {
  PGconn* conn = PQconnectdb(o.postgres.c_str());
  const std::unique_ptr<PGconn, decltype(&PQfinish)> owned(conn, &PQfinish);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < o.orders && g_stop == 0; ++i) {
    if (o.per_second > 0)
      std::this_thread::sleep_until(start + std::chrono::milliseconds(1000L * i / o.per_second));
    while (g_stop == 0) {
      if (PQstatus(conn) != CONNECTION_OK) PQreset(conn);
      const ApplyOutcome placed = PlaceOrder(conn, o.first + i, o.saga);
      if (placed.result == ApplyResult::kApplied) break;
      std::fprintf(stderr, "place: WARN order %d: %s\n", o.first + i, placed.error.c_str());
      if (placed.result == ApplyResult::kPermanent) return consumer::kExitBadRecord;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
  std::fprintf(stderr, "place: INFO placed orders %d to %d\n", o.first, o.first + o.orders - 1);
  return consumer::kExitOk;
}

}  // namespace
}  // namespace saga

int main(int argc, char** argv) {
  std::string error;
  const std::optional<saga::Options> options = saga::Parse(argc, argv, error);
  if (!options.has_value()) {
    std::fprintf(stderr, "outboxd-example-saga: %s\n%s", error.c_str(), saga::kUsage);
    return consumer::kExitUsage;
  }
  std::signal(SIGTERM, saga::OnSignal);
  std::signal(SIGINT, saga::OnSignal);
  return options->role == "place" ? saga::Place(*options) : saga::RunService(*options);
}
