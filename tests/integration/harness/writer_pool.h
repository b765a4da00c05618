#pragma once
// Concurrent writers, each on its own thread with its own Postgres connection.

#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "harness/outbox_writer.h"
#include "harness/pg_client.h"

namespace outboxd::it {

// Starts `count` threads at construction; thread i connects with `conninfo` and runs
// body(i, its connection, stop flag). A body should return soon after the flag turns true.
// The destructor requests stop and joins.
class WriterPool {
 public:
  using Body = std::function<absl::Status(int writer, PgClient& pg, const std::atomic<bool>& stop)>;

  WriterPool(const std::string& conninfo, int count, Body body);
  ~WriterPool();
  WriterPool(const WriterPool&) = delete;
  WriterPool& operator=(const WriterPool&) = delete;

  void RequestStop() { stop_ = true; }
  // Joins every thread; the first error any body (or connection) returned, else OK.
  absl::Status Join();

 private:
  std::atomic<bool> stop_{false};
  absl::Mutex mu_;
  absl::Status first_error_ ABSL_GUARDED_BY(mu_);
  std::vector<std::thread> threads_;
};

// A pool of spec.writers threads, writer w running RunLoadWriter(spec, w, ...) into results[w].
// `results` is resized to spec.writers here and must outlive the pool.
WriterPool StartLoadWriters(const std::string& conninfo, const LoadSpec& spec,
                            std::vector<WriterResult>& results);

}  // namespace outboxd::it
