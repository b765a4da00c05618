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

}  // namespace outboxd::it
