#include "support/summary.h"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "fmt/format.h"

namespace outboxd::chaos {
namespace {

std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

std::vector<std::string> Split(const std::string& line, char sep) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, sep)) fields.push_back(field);
  if (!line.empty() && line.back() == sep) fields.emplace_back();
  return fields;
}

}  // namespace

std::string SummaryPath() {
  const char* path = std::getenv("OUTBOXD_CHAOS_SUMMARY");
  return (path != nullptr && *path != '\0') ? std::string(path) : "chaos-summary.tsv";
}

void AppendSummaryRow(const SummaryRow& row) {
  std::ofstream out(SummaryPath(), std::ios::app);
  out << fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.1f}\t{:.1f}\t{}\n", OneLine(row.scenario),
                     row.faults, row.events, row.received, row.missing, row.duplicates,
                     row.reorders, row.unexpected, row.seconds, row.peak_rss_mb, OneLine(row.note));
  if (!out) std::cerr << "chaos: could not append to the summary file " << SummaryPath() << "\n";
}

absl::StatusOr<std::vector<SummaryRow>> ReadSummary(const std::string& path) {
  std::vector<SummaryRow> rows;
  std::ifstream in(path);
  if (!in) return rows;
  std::string line;
  while (std::getline(in, line)) {
    const std::vector<std::string> f = Split(line, '\t');
    if (f.size() != 11) {
      return absl::DataLossError(fmt::format("{}: malformed summary line: {}", path, line));
    }
    SummaryRow r;
    try {
      r.scenario = f[0];
      r.faults = std::stoll(f[1]);
      r.events = std::stoll(f[2]);
      r.received = std::stoll(f[3]);
      r.missing = std::stoll(f[4]);
      r.duplicates = std::stoll(f[5]);
      r.reorders = std::stoll(f[6]);
      r.unexpected = std::stoll(f[7]);
      r.seconds = std::stod(f[8]);
      r.peak_rss_mb = std::stod(f[9]);
      r.note = f[10];
    } catch (...) {
      return absl::DataLossError(fmt::format("{}: malformed summary line: {}", path, line));
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

std::string RenderSummary(const std::vector<SummaryRow>& rows) {
  size_t width = 8;
  for (const SummaryRow& r : rows) width = std::max(width, r.scenario.size());
  std::string out =
      fmt::format("{:<{}}  {:>6}  {:>9}  {:>9}  {:>7}  {:>10}  {:>8}  {:>10}  {:>7}  {:>8}\n",
                  "scenario", width, "faults", "events", "received", "missing", "duplicates",
                  "reorders", "unexpected", "time_s", "rss_mb");
  int64_t faults = 0, events = 0, received = 0, missing = 0, duplicates = 0, reorders = 0,
          unexpected = 0;
  double seconds = 0;
  for (const SummaryRow& r : rows) {
    out += fmt::format(
        "{:<{}}  {:>6}  {:>9}  {:>9}  {:>7}  {:>10}  {:>8}  {:>10}  {:>7.1f}  {:>8}\n", r.scenario,
        width, r.faults, r.events, r.received, r.missing, r.duplicates, r.reorders, r.unexpected,
        r.seconds, r.peak_rss_mb > 0 ? fmt::format("{:.1f}", r.peak_rss_mb) : "-");
    faults += r.faults;
    events += r.events;
    received += r.received;
    missing += r.missing;
    duplicates += r.duplicates;
    reorders += r.reorders;
    unexpected += r.unexpected;
    seconds += r.seconds;
  }
  out += fmt::format("{:<{}}  {:>6}  {:>9}  {:>9}  {:>7}  {:>10}  {:>8}  {:>10}  {:>7.1f}  {:>8}\n",
                     "TOTAL", width, faults, events, received, missing, duplicates, reorders,
                     unexpected, seconds, "");
  for (const SummaryRow& r : rows) {
    if (!r.note.empty()) out += fmt::format("  {}: {}\n", r.scenario, r.note);
  }
  return out;
}

}  // namespace outboxd::chaos
