#include "harness/writer_pool.h"

#include "absl/strings/str_cat.h"

namespace outboxd::it {

WriterPool::WriterPool(const std::string& conninfo, int count, Body body) {
  for (int i = 0; i < count; ++i) {
    threads_.emplace_back([this, conninfo, i, body] {
      absl::Status status;
      absl::StatusOr<PgClient> pg = PgClient::Connect(conninfo);
      if (!pg.ok()) {
        status = pg.status();
      } else {
        status = body(i, *pg, stop_);
      }
      if (!status.ok()) {
        absl::MutexLock lock(&mu_);
        if (first_error_.ok()) {
          first_error_ =
              absl::Status(status.code(), absl::StrCat("writer ", i, ": ", status.message()));
        }
      }
    });
  }
}

WriterPool::~WriterPool() {
  RequestStop();
  Join().IgnoreError();
}

absl::Status WriterPool::Join() {
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
  absl::MutexLock lock(&mu_);
  return first_error_;
}

WriterPool StartLoadWriters(const std::string& conninfo, const LoadSpec& spec,
                            std::vector<WriterResult>& results) {
  results.assign(static_cast<size_t>(spec.writers), WriterResult());
  return WriterPool(conninfo, spec.writers,
                    [spec, &results](int w, PgClient& pg, const std::atomic<bool>& stop) {
                      return RunLoadWriter(spec, w, pg, stop, results[static_cast<size_t>(w)]);
                    });
}

}  // namespace outboxd::it
