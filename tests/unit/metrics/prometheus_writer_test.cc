// The text format's spelling: exact expected text for each kind of family, escaping and the
// special float values.

#include <cmath>
#include <limits>

#include "gtest/gtest.h"
#include "metrics/prometheus_text.h"

namespace outboxd::metrics {
namespace {

TEST(EscapeLabelValue, EscapesBackslashQuoteAndNewlineOnly) {
  EXPECT_EQ(EscapeLabelValue("plain.topic-1"), "plain.topic-1");
  EXPECT_EQ(EscapeLabelValue(R"(a\b)"), R"(a\\b)");
  EXPECT_EQ(EscapeLabelValue(R"(say "hi")"), R"(say \"hi\")");
  EXPECT_EQ(EscapeLabelValue("two\nlines"), R"(two\nlines)");
  EXPECT_EQ(EscapeLabelValue("tab\there"), "tab\there");
  EXPECT_EQ(EscapeLabelValue("caf\xc3\xa9"), "caf\xc3\xa9");  // UTF-8 passes through.
  EXPECT_EQ(EscapeLabelValue(R"(\"
)"),
            R"(\\\"\n)");
}

TEST(EscapeHelp, EscapesBackslashAndNewlineButNotQuotes) {
  EXPECT_EQ(EscapeHelp(R"(a "quoted" \ word)"), R"(a "quoted" \\ word)");
  EXPECT_EQ(EscapeHelp("line\nbreak"), R"(line\nbreak)");
}

TEST(FormatValue, ShortestRoundTripAndPrometheusSpecialValues) {
  EXPECT_EQ(FormatValue(0), "0");
  EXPECT_EQ(FormatValue(1), "1");
  EXPECT_EQ(FormatValue(-2.5), "-2.5");
  EXPECT_EQ(FormatValue(0.001), "0.001");
  EXPECT_EQ(FormatValue(9007199254740992.0), "9007199254740992");
  EXPECT_EQ(FormatValue(1e20), "1e+20");
  EXPECT_EQ(FormatValue(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(FormatValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatValue(-std::numeric_limits<double>::infinity()), "-Inf");
}

TEST(PrometheusWriter, CounterAndGauge) {
  Counter c;
  c.Add(3);
  c.Add();
  PrometheusWriter w;
  w.AddCounter("x_requests_total", "Requests \\ served.\nSecond line.", c);
  w.AddGauge("x_lag_bytes", "Lag.", std::nan(""));
  EXPECT_EQ(w.text(),
            "# HELP x_requests_total Requests \\\\ served.\\nSecond line.\n"
            "# TYPE x_requests_total counter\n"
            "x_requests_total 4\n"
            "# HELP x_lag_bytes Lag.\n"
            "# TYPE x_lag_bytes gauge\n"
            "x_lag_bytes NaN\n");
}

TEST(PrometheusWriter, FamiliesSortedByLabelValueWithEscaping) {
  Family<Counter> by_topic("topic");
  by_topic.With("orders").Add(2);
  by_topic.With("a\"b\\c\nd").Add(1);
  by_topic.With("customers").Add(5);
  Family<Gauge> by_status("wal_status");
  by_status.With("reserved").Set(1);
  by_status.With("lost").Set(0);
  PrometheusWriter w;
  w.AddFamily("x_events_total", "Events.", by_topic);
  w.AddFamily("x_status", "Status.", by_status);
  EXPECT_EQ(w.text(),
            "# HELP x_events_total Events.\n"
            "# TYPE x_events_total counter\n"
            "x_events_total{topic=\"a\\\"b\\\\c\\nd\"} 1\n"
            "x_events_total{topic=\"customers\"} 5\n"
            "x_events_total{topic=\"orders\"} 2\n"
            "# HELP x_status Status.\n"
            "# TYPE x_status gauge\n"
            "x_status{wal_status=\"lost\"} 0\n"
            "x_status{wal_status=\"reserved\"} 1\n");
}

TEST(PrometheusWriter, EmptyFamilyHasHeaderButNoSamples) {
  Family<Counter> empty("reason");
  PrometheusWriter w;
  w.AddFamily("x_errors_total", "Errors.", empty);
  EXPECT_EQ(w.text(), "# HELP x_errors_total Errors.\n# TYPE x_errors_total counter\n");
}

TEST(PrometheusWriter, HistogramBucketsAreCumulativeWithInfSumAndCount) {
  Histogram h({0.125, 1, 10});
  h.Observe(0.0625);
  h.Observe(0.125);  // On a bound: `le` is inclusive.
  h.Observe(0.5);
  h.Observe(2);
  h.Observe(50);  // Above every bound: only +Inf.
  PrometheusWriter w;
  w.AddHistogram("x_latency_seconds", "Latency.", h);
  EXPECT_EQ(w.text(),
            "# HELP x_latency_seconds Latency.\n"
            "# TYPE x_latency_seconds histogram\n"
            "x_latency_seconds_bucket{le=\"0.125\"} 2\n"
            "x_latency_seconds_bucket{le=\"1\"} 3\n"
            "x_latency_seconds_bucket{le=\"10\"} 4\n"
            "x_latency_seconds_bucket{le=\"+Inf\"} 5\n"
            "x_latency_seconds_sum 52.6875\n"
            "x_latency_seconds_count 5\n");
}

TEST(PrometheusWriter, EmptyHistogramHasZeroBuckets) {
  Histogram h({1});
  PrometheusWriter w;
  w.AddHistogram("x_seconds", "S.", h);
  EXPECT_EQ(w.text(),
            "# HELP x_seconds S.\n# TYPE x_seconds histogram\n"
            "x_seconds_bucket{le=\"1\"} 0\nx_seconds_bucket{le=\"+Inf\"} 0\n"
            "x_seconds_sum 0\nx_seconds_count 0\n");
}

TEST(PrometheusWriter, InfoAndLabelledGauge) {
  PrometheusWriter w;
  w.AddInfo("x_build_info", "Build.", {{"version", "1.2\"3"}, {"commit", "abc"}});
  w.AddLabelledGauge("x_ok", "Ok.", "component", {{"b", 1}, {"a", 0}});
  EXPECT_EQ(w.text(),
            "# HELP x_build_info Build.\n# TYPE x_build_info gauge\n"
            "x_build_info{version=\"1.2\\\"3\",commit=\"abc\"} 1\n"
            "# HELP x_ok Ok.\n# TYPE x_ok gauge\n"
            "x_ok{component=\"b\"} 1\nx_ok{component=\"a\"} 0\n");
}

TEST(PrometheusWriter, LabelledCounterInTheOrderGiven) {
  PrometheusWriter w;
  w.AddLabelledCounter("x_tx_total", "Tx.", "slot", {{"s_1", 7}, {"s_0", 3}});
  EXPECT_EQ(w.text(),
            "# HELP x_tx_total Tx.\n# TYPE x_tx_total counter\n"
            "x_tx_total{slot=\"s_1\"} 7\nx_tx_total{slot=\"s_0\"} 3\n");
}

// Two labels: the outer one first, in the order given; each family's children sorted.
TEST(PrometheusWriter, NestedFamiliesCarryBothLabels) {
  Family<Gauge> first("wal_status");
  first.With("reserved").Set(1);
  first.With("lost").Set(0);
  Family<Gauge> second("wal_status");
  second.With("extended").Set(1);
  Family<Counter> restarts("cause");
  restarts.With("postgres").Add(2);
  Family<Counter> none("cause");
  PrometheusWriter w;
  w.AddNestedFamilies<Gauge>("x_status", "Status.", "slot", {{"a\"0", &first}, {"b", &second}});
  w.AddNestedFamilies<Counter>("x_restarts_total", "Restarts.", "slot",
                               {{"a", &restarts}, {"b", &none}});
  EXPECT_EQ(w.text(),
            "# HELP x_status Status.\n# TYPE x_status gauge\n"
            "x_status{slot=\"a\\\"0\",wal_status=\"lost\"} 0\n"
            "x_status{slot=\"a\\\"0\",wal_status=\"reserved\"} 1\n"
            "x_status{slot=\"b\",wal_status=\"extended\"} 1\n"
            "# HELP x_restarts_total Restarts.\n# TYPE x_restarts_total counter\n"
            "x_restarts_total{slot=\"a\",cause=\"postgres\"} 2\n");
}

}  // namespace
}  // namespace outboxd::metrics
