#include "support/chaos_load.h"

#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <set>

#include "absl/time/clock.h"
#include "fmt/format.h"
#include "harness/pg_client.h"

namespace outboxd::chaos {
namespace {

// How long a writer keeps trying to learn whether an unanswered COMMIT took effect.
constexpr absl::Duration kResolveTimeout = absl::Minutes(3);

// Postgres array literal of uuids: {a,b,c}.
std::string UuidArray(const std::vector<it::ExpectedEvent>& events) {
  std::string out = "{";
  for (size_t i = 0; i < events.size(); ++i) {
    if (i > 0) out += ",";
    out += events[i].id;
  }
  return out + "}";
}

}  // namespace

ChaosLoad::ChaosLoad(ChaosLoadSpec spec) : spec_(std::move(spec)) {
  for (int w = 0; w < spec_.writers; ++w) writers_.push_back(std::make_unique<Writer>());
  for (int w = 0; w < spec_.writers; ++w) {
    threads_.emplace_back([this, w] { Run(w, *writers_[static_cast<size_t>(w)]); });
  }
}

ChaosLoad::~ChaosLoad() { Stop().IgnoreError(); }

absl::Status ChaosLoad::Stop() {
  stop_ = true;
  return Wait();
}

absl::Status ChaosLoad::Wait() {
  if (!joined_) {
    for (std::thread& t : threads_) t.join();
    joined_ = true;
  }
  for (const auto& w : writers_) {
    if (!w->status.ok()) return w->status;
  }
  return absl::OkStatus();
}

std::vector<it::ExpectedEvent> ChaosLoad::Committed() const {
  std::vector<it::ExpectedEvent> all;
  for (const auto& w : writers_) all.insert(all.end(), w->committed.begin(), w->committed.end());
  return all;
}

absl::flat_hash_set<std::string> ChaosLoad::NotCommitted() const {
  absl::flat_hash_set<std::string> ids;
  for (const auto& w : writers_) ids.insert(w->not_committed.begin(), w->not_committed.end());
  return ids;
}

ChaosLoadStats ChaosLoad::Stats() const {
  ChaosLoadStats total;
  for (const auto& w : writers_) {
    total.transactions += w->stats.transactions;
    total.commits += w->stats.commits;
    total.rollbacks += w->stats.rollbacks;
    total.lost_connections += w->stats.lost_connections;
    total.commits_resolved += w->stats.commits_resolved;
    total.aborts_resolved += w->stats.aborts_resolved;
  }
  return total;
}

std::vector<std::string> ChaosLoad::AggregateTypes(const ChaosLoadSpec& spec) {
  std::set<std::string> types;
  for (int i = 0; i < spec.aggregates; ++i) types.insert(it::AggregateType(i));
  return std::vector<std::string>(types.begin(), types.end());
}

void ChaosLoad::Run(int index, Writer& writer) {
  std::mt19937_64 rng(spec_.seed * 1000003 + static_cast<uint64_t>(index));
  std::vector<int> owned;
  for (int i = index; i < spec_.aggregates; i += spec_.writers) owned.push_back(i);
  if (owned.empty()) {
    writer.status = absl::InvalidArgumentError("writer owns no aggregate");
    return;
  }
  std::map<int, int64_t> next_seq;  // per owned aggregate: next committed sequence number
  int64_t committed = 0;
  std::optional<it::PgClient> pg;
  const auto lost = [&] {
    pg.reset();
    ++writer.stats.lost_connections;
  };

  while (!stop_ && (spec_.rows_per_writer < 0 || committed < spec_.rows_per_writer)) {
    if (!pg.has_value()) {
      absl::StatusOr<it::PgClient> client = it::PgClient::Connect(spec_.conninfo);
      if (!client.ok()) {
        absl::SleepFor(absl::Milliseconds(100));
        continue;
      }
      pg.emplace(std::move(*client));
    }
    int64_t size = std::uniform_int_distribution<int64_t>(1, spec_.max_rows_per_tx)(rng);
    if (spec_.rows_per_writer >= 0) size = std::min(size, spec_.rows_per_writer - committed);
    const bool roll_back = spec_.rollback_one_in > 0 &&
                           std::uniform_int_distribution<int>(1, spec_.rollback_one_in)(rng) == 1;
    std::map<int, int64_t> seq = next_seq;  // advanced for real only on commit
    std::vector<it::OutboxRow> rows;
    for (int64_t r = 0; r < size; ++r) {
      const int aggregate = owned[std::uniform_int_distribution<size_t>(0, owned.size() - 1)(rng)];
      const int64_t n = seq[aggregate]++;
      rows.push_back(it::OutboxRow{
          it::AggregateType(aggregate), it::AggregateId(aggregate), "Updated",
          fmt::format(R"({{"writer": {}, "aggregate": "{}", "seq": {}, "rolled_back": {}, )"
                      R"("tx": {}, "row": {}}})",
                      index, it::AggregateId(aggregate), n, roll_back, writer.stats.transactions,
                      r)});
    }
    ++writer.stats.transactions;
    if (!pg->Exec("BEGIN").ok()) {
      lost();
      continue;
    }
    absl::StatusOr<std::vector<it::ExpectedEvent>> events =
        it::InsertOutboxRows(*pg, spec_.table, spec_.topic_prefix, rows);
    if (!events.ok()) {  // No COMMIT was sent: nothing of it can have committed.
      lost();
      continue;
    }
    bool did_commit = false;
    if (roll_back) {
      if (!pg->Exec("ROLLBACK").ok()) lost();
      ++writer.stats.rollbacks;
    } else if (pg->Exec("COMMIT").ok()) {
      did_commit = true;
    } else {
      // The answer to COMMIT was lost with the connection: look the rows up once Postgres
      // answers again. All of them (committed) or none (not) — anything else is a bug.
      lost();
      const absl::Time deadline = absl::Now() + kResolveTimeout;
      std::optional<int64_t> found;
      while (!found.has_value() && absl::Now() < deadline) {
        absl::StatusOr<it::PgClient> client = it::PgClient::Connect(spec_.conninfo);
        if (!client.ok()) {
          absl::SleepFor(absl::Milliseconds(100));
          continue;
        }
        pg.emplace(std::move(*client));
        absl::StatusOr<int64_t> n =
            pg->QueryInt(fmt::format("SELECT count(*) FROM public.{} WHERE id = ANY($1::uuid[])",
                                     it::QuoteIdent(spec_.table)),
                         {UuidArray(*events)});
        if (n.ok()) {
          found = *n;
        } else {
          pg.reset();
        }
      }
      if (!found.has_value()) {
        writer.status = absl::DeadlineExceededError(
            "could not learn whether an unanswered COMMIT took effect: Postgres stayed away");
        return;
      }
      if (*found != 0 && *found != static_cast<int64_t>(events->size())) {
        writer.status = absl::InternalError(
            fmt::format("after a lost COMMIT, {} of the transaction's {} rows are in the table",
                        *found, events->size()));
        return;
      }
      did_commit = *found != 0;
      ++(did_commit ? writer.stats.commits_resolved : writer.stats.aborts_resolved);
    }
    if (did_commit) {
      next_seq = std::move(seq);
      committed += size;
      committed_rows_ += size;
      ++writer.stats.commits;
      for (it::ExpectedEvent& e : *events) writer.committed.push_back(std::move(e));
    } else {
      for (const it::ExpectedEvent& e : *events) writer.not_committed.push_back(e.id);
    }
    if (spec_.pause_between_tx > absl::ZeroDuration()) absl::SleepFor(spec_.pause_between_tx);
  }
}

}  // namespace outboxd::chaos
