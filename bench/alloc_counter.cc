// Replaces the global operator new/delete to count allocations. In its own translation unit so
// the compiler never inlines the pair into callers (GCC then warns about malloc/free against
// new/delete).

#include "alloc_counter.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<uint64_t> g_allocations{0};
}  // namespace

void* operator new(size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t /*size*/) noexcept { std::free(p); }

namespace outboxd::bench {

uint64_t AllocationsSoFar() { return g_allocations.load(std::memory_order_relaxed); }

}  // namespace outboxd::bench
