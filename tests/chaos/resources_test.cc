// Bounded resources (DESIGN.md invariant 4): outboxd's peak resident memory (VmHWM) stays
// under 64 MB however large the backlog, the broker outage or the transaction, and everything
// still arrives. Figures go to the summary table (label `resources`).
//
//   (a) broker down for 2 minutes while 200,000 rows are committed
//   (b) one transaction of 1,000,000 rows
//   (c) one transaction of 5,000 rows x 100 kB = 500 MB of payload

#include <charconv>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/clock.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "harness/status_macros.h"
#include "support/chaos_fixture.h"
#include "support/chaos_load.h"
#include "support/stream_consumer.h"
#include "support/summary.h"

namespace outboxd::chaos {
namespace {

constexpr double kRssBoundMb = 64.0;
constexpr absl::Duration kDrainTimeout = absl::Minutes(4);

class ResourcesTest : public ChaosTest {
 protected:
  // Commits one transaction of `rows` rows of aggregate type "Big" (keys big-0..big-63 round
  // robin, payload {"seq": i} plus `pad_bytes` of padding), waits until outboxd confirmed it,
  // reads the topic back and checks every seq arrived, per key in order. Records the row.
  void BigTransaction(const std::string& scenario, int64_t rows, int pad_bytes);

  void ExpectUnderBound(const std::string& scenario, double peak_mb) {
    EXPECT_LT(peak_mb, kRssBoundMb)
        << "outboxd's peak RSS (VmHWM) in scenario '" << scenario << "' was " << peak_mb
        << " MB, over the " << kRssBoundMb << " MB bound (DESIGN.md invariant 4)";
  }
};

// "…"seq": 123…" → 123; -1 if absent.
int64_t SeqOf(std::string_view value) {
  constexpr std::string_view kField = "\"seq\": ";
  const size_t at = value.rfind(kField);
  if (at == std::string_view::npos) return -1;
  int64_t seq = -1;
  const char* begin = value.data() + at + kField.size();
  std::from_chars(begin, value.data() + value.size(), seq);
  return seq;
}

void ResourcesTest::BigTransaction(const std::string& scenario, int64_t rows, int pad_bytes) {
  constexpr int kKeys = 64;
  const absl::Time started = absl::Now();
  IT_ASSERT_OK_AND_ASSIGN(const std::string topic, AddTopic("Big", kPartitions));
  IT_ASSERT_OK(Launch().status());
  IT_ASSERT_OK(WaitStreaming());

  // One INSERT, one transaction. md5 padding: 32 hex chars repeated.
  const std::string pad =
      pad_bytes > 0 ? fmt::format(", 'pad', repeat(md5(g::text), {})", pad_bytes / 32) : "";
  IT_ASSERT_OK_AND_ASSIGN(it::PgClient * admin, Admin());
  const absl::Time insert_start = absl::Now();
  IT_ASSERT_OK(admin->Exec(
      fmt::format("INSERT INTO public.{} (aggregatetype, aggregateid, type, payload) "
                  "SELECT 'Big', 'big-' || (g % {}), 'Created', jsonb_build_object('seq', g{}) "
                  "FROM generate_series(0, {}) AS g",
                  it::QuoteIdent(table()), kKeys, pad, rows - 1)));
  const absl::Duration insert = absl::Now() - insert_start;

  absl::StatusOr<absl::Duration> drained = WaitAllConfirmed(kDrainTimeout);
  EXPECT_TRUE(drained.ok()) << drained.status();
  const double peak_mb = PeakRssMb();

  std::vector<uint8_t> seen(static_cast<size_t>(rows), 0);
  absl::flat_hash_map<std::string, int64_t> last_seq;  // per key
  int64_t duplicates = 0, reorders = 0, unexpected = 0, short_values = 0, bytes = 0;
  const absl::Time read_start = absl::Now();
  IT_ASSERT_OK_AND_ASSIGN(
      const int64_t received,
      StreamTopics(env().kafka_bootstrap, {topic}, rows, absl::Minutes(3),
                   [&](const StreamedRecord& r) {
                     const int64_t seq = r.value.has_value() ? SeqOf(*r.value) : -1;
                     if (seq < 0 || seq >= rows || !r.key.has_value() ||
                         *r.key != fmt::format("big-{}", seq % kKeys)) {
                       ++unexpected;
                       return;
                     }
                     bytes += static_cast<int64_t>(r.value->size());
                     if (r.value->size() < static_cast<size_t>(pad_bytes)) ++short_values;
                     if (seen[static_cast<size_t>(seq)]++ != 0) {
                       ++duplicates;
                       return;
                     }
                     auto [it, fresh] = last_seq.try_emplace(std::string(*r.key), seq);
                     if (!fresh) {
                       if (seq < it->second) ++reorders;
                       it->second = std::max(it->second, seq);
                     }
                   }));
  const absl::Duration read = absl::Now() - read_start;
  int64_t missing = 0;
  for (const uint8_t s : seen) missing += s == 0 ? 1 : 0;

  if (current()->Running()) {
    IT_ASSERT_OK_AND_ASSIGN(it::ExitStatus exit, current()->Stop(absl::Seconds(30)));
    EXPECT_TRUE(exit.ExitedZero()) << exit.ToString();
  }
  SummaryRow row;
  row.scenario = scenario;
  row.events = rows;
  row.received = received;
  row.missing = missing;
  row.duplicates = duplicates;
  row.reorders = reorders;
  row.unexpected = unexpected + short_values;
  row.seconds = absl::ToDoubleSeconds(absl::Now() - started);
  row.peak_rss_mb = peak_mb;
  row.note = fmt::format(
      "{:.1f} MB of values read back; insert {}, confirmed {} after it, "
      "read-back {}",
      static_cast<double>(bytes) / 1e6, Seconds(insert), drained.ok() ? Seconds(*drained) : "never",
      Seconds(read));
  AppendSummaryRow(row);
  std::cout << RenderSummary({row});

  EXPECT_EQ(missing, 0);
  EXPECT_EQ(reorders, 0);
  EXPECT_EQ(unexpected, 0);
  EXPECT_EQ(short_values, 0);
  EXPECT_EQ(unexpected_exits(), 0);
  ExpectUnderBound(scenario, peak_mb);
}

TEST_F(ResourcesTest, BrokerDownTwoMinutesWhile200kRowsAreWritten) {
  constexpr int64_t kRows = 200'000;
  constexpr absl::Duration kOutage = absl::Minutes(2);
  const std::string scenario = "broker down 2 min, 200k rows";
  const absl::Time started = absl::Now();
  IT_ASSERT_OK(Launch().status());
  IT_ASSERT_OK(WaitStreaming());
  absl::SleepFor(absl::Seconds(2));  // The producer has met the broker.

  const absl::Time down = absl::Now();
  const absl::StatusOr<absl::Duration> stopped = services().KafkaStop();
  ASSERT_TRUE(stopped.ok()) << stopped.status();
  ChaosLoadSpec spec = LoadSpec(909);
  spec.rows_per_writer = kRows / spec.writers;
  spec.pause_between_tx = absl::ZeroDuration();
  ChaosLoad load(spec);
  IT_ASSERT_OK(load.Wait());
  const absl::Duration writing = absl::Now() - down;
  ASSERT_EQ(load.committed_rows(), kRows);
  while (absl::Now() - down < kOutage) {
    ASSERT_TRUE(ExpectAlive("with the broker down"));
    absl::SleepFor(absl::Seconds(1));
  }
  const double peak_down_mb = PeakRssMb();
  const absl::StatusOr<absl::Duration> back = services().KafkaStart();
  ASSERT_TRUE(back.ok()) << back.status();
  VerifyAndRecord(scenario, 1, load, started,
                  fmt::format("rows written in {} with the broker down; broker down {}; peak RSS "
                              "{:.1f} MB while down",
                              Seconds(writing), Seconds(absl::Now() - down), peak_down_mb));
  ExpectUnderBound(scenario, PeakRssMb());
}

TEST_F(ResourcesTest, OneTransactionOfAMillionRows) {
  BigTransaction("1 transaction x 1,000,000 rows", 1'000'000, 0);
}

TEST_F(ResourcesTest, OneTransactionOf500MBOfPayload) {
  BigTransaction("1 transaction x 5,000 rows x 100 kB", 5'000, 100'000);
}

}  // namespace
}  // namespace outboxd::chaos
