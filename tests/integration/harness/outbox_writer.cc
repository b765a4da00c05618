#include "harness/outbox_writer.h"

#include <array>
#include <map>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "harness/status_macros.h"

namespace outboxd::it {
namespace {

constexpr std::array<const char*, 5> kAggregateTypes = {"Order", "Customer", "Invoice", "Shipment",
                                                        "Payment"};

}  // namespace

std::string AggregateType(int i) {
  return kAggregateTypes[static_cast<size_t>(i) % kAggregateTypes.size()];
}
std::string AggregateId(int i) { return absl::StrCat(AggregateType(i), "-", i); }

absl::Status CreateOutboxTable(PgClient& pg, const std::string& table) {
  return pg.Exec(absl::StrCat("CREATE TABLE public.", QuoteIdent(table),
                              " (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), "
                              "aggregatetype text NOT NULL, aggregateid text NOT NULL, "
                              "type text NOT NULL, payload jsonb)"));
}

absl::StatusOr<std::vector<ExpectedEvent>> InsertOutboxRows(PgClient& pg, const std::string& table,
                                                            const std::string& topic_prefix,
                                                            const std::vector<OutboxRow>& rows) {
  if (rows.empty()) return std::vector<ExpectedEvent>();
  std::string sql = absl::StrCat("INSERT INTO public.", QuoteIdent(table),
                                 " (aggregatetype, aggregateid, type, payload) VALUES ");
  std::vector<std::string> params;
  params.reserve(rows.size() * 4);
  for (size_t i = 0; i < rows.size(); ++i) {
    const size_t p = i * 4;
    absl::StrAppend(&sql, i == 0 ? "" : ", ", "($", p + 1, ", $", p + 2, ", $", p + 3, ", $", p + 4,
                    "::jsonb)");
    params.push_back(rows[i].aggregatetype);
    params.push_back(rows[i].aggregateid);
    params.push_back(rows[i].type);
    params.push_back(rows[i].payload);
  }
  // RETURNING follows the VALUES order for a plain INSERT (checked below by aggregateid).
  absl::StrAppend(&sql, " RETURNING id::text, aggregatetype, aggregateid, payload::text");
  IT_ASSIGN_OR_RETURN(std::vector<PgRow> returned, pg.Query(sql, params));
  if (returned.size() != rows.size()) {
    return absl::InternalError(
        absl::StrCat("INSERT returned ", returned.size(), " rows for ", rows.size()));
  }
  std::vector<ExpectedEvent> events;
  events.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const PgRow& r = returned[i];
    if (*r[2] != rows[i].aggregateid) {
      return absl::InternalError("INSERT ... RETURNING came back out of order");
    }
    events.push_back(
        ExpectedEvent{*r[0], absl::StrCat(topic_prefix, ".", *r[1]), *r[2], r[3].value_or("null")});
  }
  return events;
}

absl::Status RunLoadWriter(const LoadSpec& spec, int writer, PgClient& pg,
                           const std::atomic<bool>& stop, WriterResult& out) {
  std::mt19937_64 rng(spec.seed * 1000003 + static_cast<uint64_t>(writer));
  std::vector<int> owned;
  for (int i = writer; i < spec.aggregates; i += spec.writers) owned.push_back(i);
  if (owned.empty()) return absl::InvalidArgumentError("writer owns no aggregate");
  std::map<int, int64_t> next_seq;  // per owned aggregate: next committed sequence number
  int64_t committed_rows = 0;

  while (!stop && (spec.rows_per_writer < 0 || committed_rows < spec.rows_per_writer)) {
    int64_t size = std::uniform_int_distribution<int64_t>(1, spec.max_rows_per_tx)(rng);
    if (spec.rows_per_writer >= 0) size = std::min(size, spec.rows_per_writer - committed_rows);
    const bool roll_back = spec.rollback_one_in > 0 &&
                           std::uniform_int_distribution<int>(1, spec.rollback_one_in)(rng) == 1;
    std::map<int, int64_t> seq = next_seq;  // advanced for real only on commit
    std::vector<OutboxRow> rows;
    for (int64_t r = 0; r < size; ++r) {
      const int aggregate = owned[std::uniform_int_distribution<size_t>(0, owned.size() - 1)(rng)];
      const int64_t n = seq[aggregate]++;
      rows.push_back(OutboxRow{
          AggregateType(aggregate), AggregateId(aggregate), "Updated",
          absl::StrFormat(R"({"writer": %d, "aggregate": "%s", "seq": %d, "rolled_back": %s, )"
                          R"("note": "tx %d row %d of writer %d"})",
                          writer, AggregateId(aggregate), n, roll_back ? "true" : "false",
                          out.transactions, r, writer)});
    }
    IT_RETURN_IF_ERROR(pg.Exec("BEGIN"));
    absl::StatusOr<std::vector<ExpectedEvent>> events =
        InsertOutboxRows(pg, spec.table, spec.topic_prefix, rows);
    if (!events.ok()) {
      pg.Exec("ROLLBACK").IgnoreError();
      return events.status();
    }
    ++out.transactions;
    if (roll_back) {
      IT_RETURN_IF_ERROR(pg.Exec("ROLLBACK"));
      ++out.rollbacks;
      for (const ExpectedEvent& e : *events) out.rolled_back_ids.push_back(e.id);
    } else {
      IT_RETURN_IF_ERROR(pg.Exec("COMMIT"));
      next_seq = std::move(seq);
      committed_rows += size;
      for (ExpectedEvent& e : *events) out.committed.push_back(std::move(e));
    }
    if (spec.pause_between_tx > absl::ZeroDuration()) absl::SleepFor(spec.pause_between_tx);
  }
  return absl::OkStatus();
}

std::vector<ExpectedEvent> CommittedEvents(const std::vector<WriterResult>& results) {
  std::vector<ExpectedEvent> events;
  for (const WriterResult& r : results) {
    events.insert(events.end(), r.committed.begin(), r.committed.end());
  }
  return events;
}

}  // namespace outboxd::it
