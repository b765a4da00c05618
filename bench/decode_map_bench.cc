// Hot-path cost per outbox row: decode the pgoutput Insert, map it to a Kafka record, and
// account for it in the ack tracker. The relay's CPU budget per event is what these measure;
// compare runs of the same binary, not absolute numbers across machines. Each benchmark also
// reports heap allocations per message ("allocs/msg"), counted by bench/alloc_counter.cc.

#include <algorithm>
#include <string>

#include "alloc_counter.h"
#include "benchmark/benchmark.h"
#include "config/config.h"
#include "encoding/encoder_factory.h"
#include "outbox/mapper.h"
#include "pgoutput/decoder.h"
#include "registry/schema_ids.h"
#include "relay/ack_tracker.h"
#include "support/pgoutput_encoder.h"

namespace outboxd {
namespace {

// Counts allocations from construction to Report(), which sets the "allocs/msg" counter.
class AllocationCounter {
 public:
  AllocationCounter() : start_(bench::AllocationsSoFar()) {}
  void Report(benchmark::State& state, int64_t messages) const {
    const uint64_t n = bench::AllocationsSoFar() - start_;
    state.counters["allocs/msg"] =
        static_cast<double>(n) / static_cast<double>(std::max<int64_t>(messages, 1));
  }

 private:
  uint64_t start_;
};

constexpr RelationId kOutbox{16384};

pgoutput::Relation OutboxRelation() {
  pgoutput::Relation relation{kOutbox, "public", "outbox", 'd', {}};
  for (auto [name, oid] : {std::pair<const char*, uint32_t>{"id", 2950},
                           {"aggregatetype", 25},
                           {"aggregateid", 25},
                           {"type", 25},
                           {"payload", 3802}}) {
    relation.columns.push_back({0, name, oid, -1});
  }
  return relation;
}

std::string InsertBytes(size_t payload_size) {
  const std::string payload = "{\"pad\": \"" + std::string(payload_size, 'x') + "\"}";
  return testing::EncodeInsert(
      kOutbox, testing::EncodeTupleData(std::vector<std::optional<std::string>>{
                   "9b2e4c1e-6a53-4d5e-a0f1-3b6c2f1d7e80", "Order", "order-12345", "OrderCreated",
                   payload}));
}

void BM_DecodeInsert(benchmark::State& state) {
  const std::string bytes = InsertBytes(static_cast<size_t>(state.range(0)));
  const AllocationCounter allocations;
  for (auto _ : state) {
    auto message = pgoutput::Decode(bytes);
    benchmark::DoNotOptimize(message);
  }
  allocations.Report(state, state.iterations());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes.size()));
}
BENCHMARK(BM_DecodeInsert)->Arg(64)->Arg(1024)->Arg(16384);

void BM_DecodeAndMapInsert(benchmark::State& state) {
  const std::string bytes = InsertBytes(static_cast<size_t>(state.range(0)));
  config::OutboxConfig cfg;
  const std::unique_ptr<const outbox::Encoder> encoder = encoding::CreateEncoder(cfg);
  outbox::Mapper mapper(cfg, {config::TableName{"public", "outbox"}}, *encoder);
  const outbox::EventSource source;  // The raw format carries no source position.
  mapper.OnRelation(OutboxRelation());
  outbox::OutboxEvent event;
  const AllocationCounter allocations;
  for (auto _ : state) {
    auto message = pgoutput::Decode(bytes);
    if (!message.ok() || !mapper.Map(std::get<pgoutput::Insert>(*message), source, event).ok()) {
      state.SkipWithError("mapping failed");
      break;
    }
    benchmark::DoNotOptimize(event.value);
  }
  allocations.Report(state, state.iterations());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DecodeAndMapInsert)->Arg(64)->Arg(1024)->Arg(16384);

// A registry that answers id 1 to everything: what the cache holds once warm.
class FixedRegistry final : public registry::RegistryClient {
 public:
  absl::StatusOr<int32_t> Register(std::string_view, std::string_view) override { return 1; }
  absl::StatusOr<int32_t> Lookup(std::string_view, std::string_view) override { return 1; }
  absl::StatusOr<int32_t> LatestId(std::string_view) override { return 1; }
  absl::StatusOr<std::string> Compatibility(std::string_view) override { return "NONE"; }
  absl::StatusOr<std::vector<std::string>> Subjects() override {
    return std::vector<std::string>{};
  }
};

// BM_DecodeAndMapInsert under key_converter = value_converter = "avro" (avro-c encoding, the
// real id cache; the registry is never asked again after the first row).
void BM_DecodeAndMapInsertAvro(benchmark::State& state) {
  const std::string bytes = InsertBytes(static_cast<size_t>(state.range(0)));
  config::OutboxConfig cfg;
  cfg.key_converter = config::Converter::kAvro;
  cfg.value_converter = config::Converter::kAvro;
  const config::SchemaRegistryConfig registry_cfg;
  const SystemClock clock;
  registry::CachedSchemaIds ids(registry_cfg, std::make_unique<FixedRegistry>(), clock);
  const std::unique_ptr<const outbox::Encoder> encoder =
      encoding::CreateEncoder(cfg, encoding::ProcessRunId(), &ids);
  outbox::Mapper mapper(cfg, {config::TableName{"public", "outbox"}}, *encoder);
  const outbox::EventSource source;
  mapper.OnRelation(OutboxRelation());
  outbox::OutboxEvent event;
  auto map_once = [&] {
    auto message = pgoutput::Decode(bytes);
    return message.ok() && mapper.Map(std::get<pgoutput::Insert>(*message), source, event).ok();
  };
  if (!map_once()) state.SkipWithError("mapping failed");  // Warms the cache and the value.
  const AllocationCounter allocations;
  for (auto _ : state) {
    if (!map_once()) {
      state.SkipWithError("mapping failed");
      break;
    }
    benchmark::DoNotOptimize(event.value);
  }
  allocations.Report(state, state.iterations());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DecodeAndMapInsertAvro)->Arg(64)->Arg(1024)->Arg(16384);

void BM_AckTrackerTransaction(benchmark::State& state) {
  relay::AckTracker tracker;
  uint64_t lsn = 1;
  const int records = static_cast<int>(state.range(0));
  const AllocationCounter allocations;
  for (auto _ : state) {
    const auto tx = tracker.Begin();
    for (int i = 0; i < records; ++i) tracker.AddRecord();
    tracker.Commit(Lsn(++lsn));
    for (int i = 0; i < records; ++i) tracker.Acknowledge(tx);
  }
  benchmark::DoNotOptimize(tracker.safe_lsn());
  allocations.Report(state, state.iterations() * records);
  state.SetItemsProcessed(state.iterations() * records);
}
BENCHMARK(BM_AckTrackerTransaction)->Arg(1)->Arg(50);

}  // namespace
}  // namespace outboxd

BENCHMARK_MAIN();
