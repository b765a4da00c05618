#include "position/position_record.h"

#include "common/json_string.h"
#include "common/strings.h"
#include "fmt/format.h"
#include "simdjson.h"

namespace outboxd::position {
namespace {

constexpr int64_t kFormatVersion = 1;

absl::Status Bad(std::string_view what) {
  return absl::DataLossError(Concat("position record: ", what,
                                    "; it was not written by this outboxd version: delete the "
                                    "record (or the topic) and start with --allow-new-slot"));
}

}  // namespace

std::string EncodeRecord(const PositionRecord& record) {
  std::string out = fmt::format("{{\"v\":{},\"slot\":", kFormatVersion);
  AppendJsonString(out, record.slot);
  out += ",\"system_id\":";
  AppendJsonString(out, record.system_id);
  out += fmt::format(",\"timeline\":{},\"lsn\":\"{}\",\"written_unix_ms\":{}", record.timeline,
                     record.lsn.ToString(), record.written_unix_ms);
  if (record.partial.commit_lsn.IsValid()) {
    out += fmt::format(",\"partial\":{{\"commit_lsn\":\"{}\",\"events\":{}}}",
                       record.partial.commit_lsn.ToString(), record.partial.events);
  }
  out += '}';
  return out;
}

absl::StatusOr<PositionRecord> DecodeRecord(std::string_view text) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(text.data(), text.size()).get(doc) != simdjson::SUCCESS) {
    return Bad("not JSON");
  }
  int64_t version = 0;
  std::string_view slot, system_id, lsn;
  int64_t timeline = 0, written = 0;
  if (doc["v"].get(version) != simdjson::SUCCESS || version != kFormatVersion) {
    return Bad("missing or unknown \"v\"");
  }
  if (doc["slot"].get(slot) || doc["system_id"].get(system_id) || doc["lsn"].get(lsn) ||
      doc["timeline"].get(timeline) || doc["written_unix_ms"].get(written)) {
    return Bad("a field is missing or has the wrong type");
  }
  std::optional<Lsn> parsed = Lsn::Parse(lsn);
  if (!parsed) return Bad(Concat("lsn '", lsn, "' is not X/X"));
  PositionRecord record{.slot = std::string(slot),
                        .system_id = std::string(system_id),
                        .timeline = static_cast<int>(timeline),
                        .lsn = *parsed,
                        .written_unix_ms = written};
  simdjson::dom::element partial;
  if (doc["partial"].get(partial) == simdjson::SUCCESS) {
    std::string_view commit_lsn;
    uint64_t events = 0;
    if (partial["commit_lsn"].get(commit_lsn) || partial["events"].get(events)) {
      return Bad("\"partial\" lacks \"commit_lsn\" or \"events\"");
    }
    std::optional<Lsn> partial_lsn = Lsn::Parse(commit_lsn);
    if (!partial_lsn) return Bad(Concat("partial commit_lsn '", commit_lsn, "' is not X/X"));
    record.partial = {.commit_lsn = *partial_lsn, .events = events};
  }
  return record;
}

}  // namespace outboxd::position
