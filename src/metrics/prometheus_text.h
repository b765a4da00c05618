#pragma once
// Prometheus text exposition format 0.0.4 (what /metrics serves): a small writer that spells
// names, labels and values the way Prometheus parses them, and the rendering of every metric
// outboxd exports (RelayMetrics) under its `outboxd_` name.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "metrics/health.h"
#include "metrics/metrics.h"

namespace outboxd::metrics {

inline constexpr std::string_view kPrometheusContentType = "text/plain; version=0.0.4";

// What `outboxd_build_info{version,commit,librdkafka,libpq,simdjson} 1` carries; the caller
// fills it (outboxd's from git, the libraries' as loaded: daemon/build_info.h).
struct BuildInfo {
  std::string version;
  std::string commit;
  std::string librdkafka;
  std::string libpq;
  std::string simdjson;
};

// The whole /metrics page: every RelayMetrics metric with `# HELP` and `# TYPE`, children of
// a family sorted by label value, then `outboxd_build_info`. The SlotMetrics of each slot are
// samples of the same metric names with a `slot` label, one per slot, sorted by slot. With a
// non-null `health` it also exports readiness (`outboxd_ready`,
// `outboxd_health_component_ok{component}`) so alerts can see what /readyz says. Reads each metric
// once; safe on any thread while the stages update.
std::string RenderPrometheus(const RelayMetrics& metrics, const BuildInfo& build,
                             const Health::Snapshot* health = nullptr);

// `value` escaped for a label value: backslash, double quote and newline get a backslash.
std::string EscapeLabelValue(std::string_view value);
// `text` escaped for a # HELP line: backslash and newline only.
std::string EscapeHelp(std::string_view text);
// A sample value: shortest text that reads back as `value`; NaN, +Inf and -Inf as Prometheus
// spells them.
std::string FormatValue(double value);

// Appends metric families to a string. Each Add* writes the `# HELP`/`# TYPE` header and the
// samples of one family; `name` must be a valid metric name (the caller's constant). Not
// thread-safe; the metrics it reads may be updated concurrently.
class PrometheusWriter {
 public:
  void AddCounter(std::string_view name, std::string_view help, const Counter& counter);
  void AddGauge(std::string_view name, std::string_view help, double value);
  // A counter or gauge family (Metric is Counter or Gauge), its children sorted by label value.
  template <typename Metric>
  void AddFamily(std::string_view name, std::string_view help, const Family<Metric>& family);
  void AddHistogram(std::string_view name, std::string_view help, const Histogram& histogram);
  // One histogram family with a `label` per (label value, histogram) pair, in the order given.
  void AddLabelledHistograms(std::string_view name, std::string_view help, std::string_view label,
                             const std::vector<std::pair<std::string, const Histogram*>>& children);
  // A gauge with one labelled sample per (label value, value) pair, in the order given.
  void AddLabelledGauge(std::string_view name, std::string_view help, std::string_view label,
                        const std::vector<std::pair<std::string, double>>& samples);
  // A counter with one labelled sample per (label value, value) pair, in the order given.
  void AddLabelledCounter(std::string_view name, std::string_view help, std::string_view label,
                          const std::vector<std::pair<std::string, uint64_t>>& samples);
  // Families of one metric told apart by a second label: for each (label value, family) pair,
  // in the order given, the family's children sorted by their own label, each sample carrying
  // `label` first and the family's label second (e.g. {slot="a",wal_status="lost"}).
  template <typename Metric>
  void AddNestedFamilies(
      std::string_view name, std::string_view help, std::string_view label,
      const std::vector<std::pair<std::string, const Family<Metric>*>>& families);
  // An info-style gauge: one sample of value 1 with the given (name, value) labels, in order.
  void AddInfo(std::string_view name, std::string_view help,
               const std::vector<std::pair<std::string, std::string>>& labels);

  const std::string& text() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  void Header(std::string_view name, std::string_view help, std::string_view type);
  void Sample(std::string_view name, std::string_view labels, std::string_view value);
  // The samples of one histogram; `labels` (may be empty) goes before `le`.
  void HistogramSamples(std::string_view name, std::string_view labels, const Histogram& histogram);

  std::string out_;
};

}  // namespace outboxd::metrics
