// The /metrics catalogue rendered from a populated RelayMetrics: the exported names and types,
// a few exact samples, and the exposition-format rules checked line by line.

#include "metrics/prometheus_text.h"

#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sample_metrics.h"

namespace outboxd::metrics {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string RenderSample(bool with_health = true) {
  static RelayMetrics* m = [] {
    auto* metrics = new RelayMetrics;
    testing::Populate(*metrics);
    return metrics;
  }();
  const Health::Snapshot health = testing::SampleHealth();
  return RenderPrometheus(*m, testing::SampleBuild(), with_health ? &health : nullptr);
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// (name -> type) from the # TYPE lines, in the order they appear.
std::map<std::string, std::string> Types(const std::string& text) {
  std::map<std::string, std::string> types;
  static const std::regex kType("# TYPE (\\S+) (\\S+)");
  for (const auto& line : Lines(text)) {
    std::smatch m;
    if (std::regex_match(line, m, kType)) types[m[1]] = m[2];
  }
  return types;
}

TEST(RenderPrometheus, ExportsTheWholeCatalogueUnderItsNames) {
  const std::map<std::string, std::string> expected = {
      {"outboxd_events_published_total", "counter"},
      {"outboxd_published_bytes_total", "counter"},
      {"outboxd_delivery_errors_total", "counter"},
      {"outboxd_kafka_retries_total", "counter"},
      {"outboxd_dead_lettered_events_total", "counter"},
      {"outboxd_events_in_flight", "gauge"},
      {"outboxd_commit_to_ack_seconds", "histogram"},
      {"outboxd_replication_lag_bytes", "gauge"},
      {"outboxd_replication_lag_seconds", "gauge"},
      {"outboxd_confirmed_lsn", "gauge"},
      {"outboxd_transactions_total", "counter"},
      {"outboxd_replayed_transactions_skipped_total", "counter"},
      {"outboxd_kafka_transactions_committed_total", "counter"},
      {"outboxd_kafka_transaction_records_total", "counter"},
      {"outboxd_kafka_transactions_aborted_total", "counter"},
      {"outboxd_kafka_transaction_commit_seconds", "histogram"},
      {"outboxd_kafka_transaction_phase_seconds", "histogram"},
      {"outboxd_rows_ignored_total", "counter"},
      {"outboxd_empty_key_events_total", "counter"},
      {"outboxd_invalid_operations_total", "counter"},
      {"outboxd_stage_seconds", "histogram"},
      {"outboxd_slot_retained_wal_bytes", "gauge"},
      {"outboxd_slot_safe_wal_size_bytes", "gauge"},
      {"outboxd_slot_wal_status", "gauge"},
      {"outboxd_restarts_total", "counter"},
      {"outboxd_reconnects_total", "counter"},
      {"outboxd_ready", "gauge"},
      {"outboxd_health_component_ok", "gauge"},
      {"outboxd_build_info", "gauge"},
  };
  EXPECT_EQ(Types(RenderSample()), expected);
}

TEST(RenderPrometheus, SamplesCarryTheValuesTheStagesSet) {
  const std::string text = RenderSample();
  for (const char* line : {
           "outboxd_events_published_total{topic=\"outbox.dlq\"} 1\n",
           "outboxd_events_published_total{topic=\"outbox.event.customers\"} 2\n",
           "outboxd_events_published_total{topic=\"outbox.event.orders\"} 3\n",
           "outboxd_published_bytes_total{topic=\"outbox.event.orders\"} 300\n",
           "outboxd_delivery_errors_total{reason=\"Local: Message timed out\"} 2\n",
           "outboxd_kafka_retries_total 4\n",
           "outboxd_dead_lettered_events_total{reason=\"payload is not valid JSON: "
           "\\\"x\\\\y\\\"\\nat 1\"} 1\n",
           "outboxd_events_in_flight 7\n",
           "outboxd_commit_to_ack_seconds_bucket{le=\"0.001\"} 1\n",
           "outboxd_commit_to_ack_seconds_bucket{le=\"0.0025\"} 2\n",
           "outboxd_commit_to_ack_seconds_bucket{le=\"0.005\"} 3\n",
           "outboxd_commit_to_ack_seconds_bucket{le=\"0.25\"} 4\n",
           "outboxd_commit_to_ack_seconds_bucket{le=\"60\"} 4\n",
           "outboxd_commit_to_ack_seconds_bucket{le=\"+Inf\"} 5\n",
           "outboxd_commit_to_ack_seconds_count 5\n",
           "outboxd_replication_lag_bytes{slot=\"outboxd_0\"} 4096\n",
           "outboxd_replication_lag_seconds{slot=\"outboxd_0\"} 0.25\n",
           "outboxd_confirmed_lsn{slot=\"outboxd_0\"} 23803720\n",
           "outboxd_transactions_total{slot=\"outboxd_0\"} 6\n",
           "outboxd_rows_ignored_total{slot=\"outboxd_0\"} 9\n",
           "outboxd_stage_seconds_bucket{stage=\"acked\",le=\"0.0001\"} 1\n",
           "outboxd_stage_seconds_bucket{stage=\"acked\",le=\"0.005\"} 2\n",
           "outboxd_stage_seconds_bucket{stage=\"acked\",le=\"+Inf\"} 2\n",
           "outboxd_stage_seconds_count{stage=\"acked\"} 2\n",
           "outboxd_stage_seconds_count{stage=\"confirmed\"} 0\n",
           "outboxd_empty_key_events_total{table=\"public.outbox\"} 2\n",
           "outboxd_invalid_operations_total{table=\"public.outbox\"} 1\n",
           "outboxd_slot_retained_wal_bytes{slot=\"outboxd_0\"} 1048576\n",
           "outboxd_slot_safe_wal_size_bytes{slot=\"outboxd_0\"} NaN\n",
           "outboxd_slot_wal_status{slot=\"outboxd_0\",wal_status=\"extended\"} 0\n",
           "outboxd_slot_wal_status{slot=\"outboxd_0\",wal_status=\"reserved\"} 1\n",
           "outboxd_restarts_total{slot=\"outboxd_0\",cause=\"postgres\"} 1\n",
           "outboxd_reconnects_total{server=\"kafka\"} 1\n",
           "outboxd_ready 0\n",
           "outboxd_health_component_ok{component=\"producer\"} 0\n",
           "outboxd_health_component_ok{component=\"slot\"} 1\n",
           "outboxd_health_component_ok{component=\"streaming\"} 1\n",
           "outboxd_build_info{version=\"0.1.0-3-gabc\\\"def\",commit=\"abcdef0\","
           "librdkafka=\"2.8.0\",libpq=\"15.18\",simdjson=\"3.0.1\"} 1\n",
       }) {
    EXPECT_THAT(text, HasSubstr(line));
  }
}

// The lines of `text` that are samples of `name` (not its HELP or TYPE, nor longer names).
std::vector<std::string> SamplesOf(const std::string& text, const std::string& name) {
  std::vector<std::string> out;
  for (const auto& line : Lines(text)) {
    if (line.starts_with(name + "{") || line.starts_with(name + " ")) out.push_back(line);
  }
  return out;
}

// Each slot's stream has its own series of the per-slot metrics, sorted by slot, under one
// HELP/TYPE; process-wide metrics carry no slot label.
TEST(RenderPrometheus, PerSlotMetricsHaveOneSamplePerSlot) {
  const std::string text = RenderSample();
  EXPECT_THAT(SamplesOf(text, "outboxd_confirmed_lsn"),
              ::testing::ElementsAre("outboxd_confirmed_lsn{slot=\"outboxd_0\"} 23803720",
                                     "outboxd_confirmed_lsn{slot=\"outboxd_1\"} 23789568"));
  EXPECT_THAT(SamplesOf(text, "outboxd_replication_lag_bytes"),
              ::testing::ElementsAre("outboxd_replication_lag_bytes{slot=\"outboxd_0\"} 4096",
                                     "outboxd_replication_lag_bytes{slot=\"outboxd_1\"} 512"));
  EXPECT_THAT(SamplesOf(text, "outboxd_transactions_total"),
              ::testing::ElementsAre("outboxd_transactions_total{slot=\"outboxd_0\"} 6",
                                     "outboxd_transactions_total{slot=\"outboxd_1\"} 2"));
  EXPECT_THAT(
      SamplesOf(text, "outboxd_slot_safe_wal_size_bytes"),
      ::testing::ElementsAre("outboxd_slot_safe_wal_size_bytes{slot=\"outboxd_0\"} NaN",
                             "outboxd_slot_safe_wal_size_bytes{slot=\"outboxd_1\"} 1073741824"));
  EXPECT_THAT(SamplesOf(text, "outboxd_slot_wal_status"),
              ::testing::ElementsAre(
                  "outboxd_slot_wal_status{slot=\"outboxd_0\",wal_status=\"extended\"} 0",
                  "outboxd_slot_wal_status{slot=\"outboxd_0\",wal_status=\"reserved\"} 1",
                  "outboxd_slot_wal_status{slot=\"outboxd_1\",wal_status=\"extended\"} 1",
                  "outboxd_slot_wal_status{slot=\"outboxd_1\",wal_status=\"reserved\"} 0"));
  // A slot with no restart has no restarts sample.
  EXPECT_THAT(
      SamplesOf(text, "outboxd_restarts_total"),
      ::testing::ElementsAre("outboxd_restarts_total{slot=\"outboxd_0\",cause=\"postgres\"} 1"));
  EXPECT_THAT(SamplesOf(text, "outboxd_kafka_retries_total"),
              ::testing::ElementsAre("outboxd_kafka_retries_total 4"));
  EXPECT_THAT(text, Not(HasSubstr("_bucket{slot=")));
}

// With one slot (parallel_slots = 1) the series carry its name all the same, so dashboards
// read 1 and N slots alike; before a slot's stream first writes them, they read 0.
TEST(RenderPrometheus, OneSlotIsLabelledToo) {
  RelayMetrics m;
  m.Slot("outboxd");
  const std::string text = RenderPrometheus(m, testing::SampleBuild());
  EXPECT_THAT(text, HasSubstr("outboxd_confirmed_lsn{slot=\"outboxd\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("outboxd_replication_lag_seconds{slot=\"outboxd\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("outboxd_rows_ignored_total{slot=\"outboxd\"} 0\n"));
  EXPECT_THAT(text, Not(HasSubstr("outboxd_confirmed_lsn 0")));
}

TEST(RenderPrometheus, WithoutHealthLeavesReadinessOut) {
  const std::string text = RenderSample(/*with_health=*/false);
  EXPECT_THAT(text, Not(HasSubstr("outboxd_ready")));
  EXPECT_THAT(text, Not(HasSubstr("outboxd_health_component_ok")));
  EXPECT_THAT(text, HasSubstr("outboxd_build_info{"));
}

// The format's rules, line by line: HELP then TYPE once per name, samples only of a declared
// name (plus _bucket/_sum/_count for histograms), `_total` exactly on counters, valid names.
TEST(RenderPrometheus, FollowsTheExpositionFormatRules) {
  static const std::regex kHelp("# HELP (outboxd_[a-z_]+) \\S.*");
  static const std::regex kType("# TYPE (outboxd_[a-z_]+) (counter|gauge|histogram)");
  static const std::regex kSample("(outboxd_[a-z_]+)(\\{[^}]*\\})? (\\S+)");
  std::map<std::string, std::string> declared;
  std::string pending_help, current, current_type;
  for (const auto& line : Lines(RenderSample())) {
    std::smatch m;
    if (std::regex_match(line, m, kHelp)) {
      pending_help = m[1];
    } else if (std::regex_match(line, m, kType)) {
      ASSERT_EQ(pending_help, m[1]) << "TYPE without its HELP just above: " << line;
      ASSERT_FALSE(declared.contains(m[1])) << "declared twice: " << line;
      current = m[1];
      current_type = m[2];
      declared[current] = current_type;
      EXPECT_EQ(current_type == "counter", current.ends_with("_total")) << line;
    } else {
      ASSERT_TRUE(std::regex_match(line, m, kSample)) << "not a sample line: " << line;
      const std::string name = m[1];
      if (current_type == "histogram") {
        EXPECT_TRUE(name == current + "_bucket" || name == current + "_sum" ||
                    name == current + "_count")
            << line;
      } else {
        EXPECT_EQ(name, current) << "sample outside its family: " << line;
      }
    }
  }
  EXPECT_EQ(declared.size(), 29u);
}

TEST(RenderPrometheus, LabelValueWithNewlineStaysOnOneLine) {
  RelayMetrics m;
  m.dead_lettered.With("line1\nline2").Add(1);
  const std::string text = RenderPrometheus(m, testing::SampleBuild());
  EXPECT_THAT(text, HasSubstr("outboxd_dead_lettered_events_total{reason=\"line1\\nline2\"} 1\n"));
  EXPECT_THAT(text, Not(HasSubstr("line1\n")));
}

}  // namespace
}  // namespace outboxd::metrics
