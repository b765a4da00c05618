// The text format's spelling rules (names, label escaping, special float values, histogram
// series), independent of which metrics outboxd exports.

#include <algorithm>
#include <cmath>

#include "fmt/format.h"
#include "metrics/prometheus_text.h"

namespace outboxd::metrics {
namespace {

template <typename Metric>
std::vector<std::pair<std::string, const Metric*>> SortedChildren(const Family<Metric>& family) {
  auto children = family.Children();
  std::sort(children.begin(), children.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  return children;
}

std::string Label(std::string_view name, std::string_view value) {
  return fmt::format("{}=\"{}\"", name, EscapeLabelValue(value));
}

// How the text format types and spells each kind of metric.
std::string_view TypeName(const Counter* /*kind*/) { return "counter"; }
std::string_view TypeName(const Gauge* /*kind*/) { return "gauge"; }
std::string SampleText(const Counter& counter) { return fmt::format("{}", counter.value()); }
std::string SampleText(const Gauge& gauge) { return FormatValue(gauge.value()); }

}  // namespace

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string EscapeHelp(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string FormatValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", value);
}

void PrometheusWriter::Header(std::string_view name, std::string_view help, std::string_view type) {
  fmt::format_to(std::back_inserter(out_), "# HELP {} {}\n# TYPE {} {}\n", name, EscapeHelp(help),
                 name, type);
}

void PrometheusWriter::Sample(std::string_view name, std::string_view labels,
                              std::string_view value) {
  if (labels.empty()) {
    fmt::format_to(std::back_inserter(out_), "{} {}\n", name, value);
  } else {
    fmt::format_to(std::back_inserter(out_), "{}{{{}}} {}\n", name, labels, value);
  }
}

void PrometheusWriter::AddCounter(std::string_view name, std::string_view help,
                                  const Counter& counter) {
  Header(name, help, "counter");
  Sample(name, "", fmt::format("{}", counter.value()));
}

template <typename Metric>
void PrometheusWriter::AddFamily(std::string_view name, std::string_view help,
                                 const Family<Metric>& family) {
  Header(name, help, TypeName(static_cast<const Metric*>(nullptr)));
  for (const auto& [label_value, child] : SortedChildren(family)) {
    Sample(name, Label(family.label_name(), label_value), SampleText(*child));
  }
}
template void PrometheusWriter::AddFamily(std::string_view, std::string_view,
                                          const Family<Counter>&);
template void PrometheusWriter::AddFamily(std::string_view, std::string_view, const Family<Gauge>&);

void PrometheusWriter::AddGauge(std::string_view name, std::string_view help, double value) {
  Header(name, help, "gauge");
  Sample(name, "", FormatValue(value));
}

void PrometheusWriter::AddLabelledGauge(
    std::string_view name, std::string_view help, std::string_view label,
    const std::vector<std::pair<std::string, double>>& samples) {
  Header(name, help, "gauge");
  for (const auto& [label_value, value] : samples) {
    Sample(name, Label(label, label_value), FormatValue(value));
  }
}

void PrometheusWriter::AddLabelledCounter(
    std::string_view name, std::string_view help, std::string_view label,
    const std::vector<std::pair<std::string, uint64_t>>& samples) {
  Header(name, help, "counter");
  for (const auto& [label_value, value] : samples) {
    Sample(name, Label(label, label_value), fmt::format("{}", value));
  }
}

template <typename Metric>
void PrometheusWriter::AddNestedFamilies(
    std::string_view name, std::string_view help, std::string_view label,
    const std::vector<std::pair<std::string, const Family<Metric>*>>& families) {
  Header(name, help, TypeName(static_cast<const Metric*>(nullptr)));
  for (const auto& [outer_value, family] : families) {
    const std::string outer = Label(label, outer_value);
    for (const auto& [label_value, child] : SortedChildren(*family)) {
      Sample(name, fmt::format("{},{}", outer, Label(family->label_name(), label_value)),
             SampleText(*child));
    }
  }
}
template void PrometheusWriter::AddNestedFamilies(
    std::string_view, std::string_view, std::string_view,
    const std::vector<std::pair<std::string, const Family<Counter>*>>&);
template void PrometheusWriter::AddNestedFamilies(
    std::string_view, std::string_view, std::string_view,
    const std::vector<std::pair<std::string, const Family<Gauge>*>>&);

void PrometheusWriter::AddInfo(std::string_view name, std::string_view help,
                               const std::vector<std::pair<std::string, std::string>>& labels) {
  Header(name, help, "gauge");
  std::string text;
  for (const auto& [label_name, label_value] : labels) {
    if (!text.empty()) text += ',';
    text += Label(label_name, label_value);
  }
  Sample(name, text, "1");
}

// One consistent Read(): the buckets, _sum and _count of a scrape come from the same snapshot,
// so _count always equals the +Inf bucket.
void PrometheusWriter::AddHistogram(std::string_view name, std::string_view help,
                                    const Histogram& histogram) {
  Header(name, help, "histogram");
  HistogramSamples(name, "", histogram);
}

void PrometheusWriter::AddLabelledHistograms(
    std::string_view name, std::string_view help, std::string_view label,
    const std::vector<std::pair<std::string, const Histogram*>>& children) {
  Header(name, help, "histogram");
  for (const auto& [label_value, histogram] : children) {
    HistogramSamples(name, Label(label, label_value), *histogram);
  }
}

void PrometheusWriter::HistogramSamples(std::string_view name, std::string_view labels,
                                        const Histogram& histogram) {
  const Histogram::Snapshot s = histogram.Read();
  const std::string bucket = fmt::format("{}_bucket", name);
  const std::string prefix = labels.empty() ? std::string() : fmt::format("{},", labels);
  for (size_t i = 0; i < s.upper_bounds.size(); ++i) {
    Sample(bucket, prefix + Label("le", FormatValue(s.upper_bounds[i])),
           fmt::format("{}", s.cumulative_counts[i]));
  }
  Sample(bucket, prefix + Label("le", "+Inf"), fmt::format("{}", s.count));
  Sample(fmt::format("{}_sum", name), labels, FormatValue(s.sum));
  Sample(fmt::format("{}_count", name), labels, fmt::format("{}", s.count));
}

}  // namespace outboxd::metrics
