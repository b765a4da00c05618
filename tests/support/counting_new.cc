#include "support/counting_new.h"

#include <cstdlib>
#include <new>

namespace {
thread_local int64_t allocations = 0;
}  // namespace

void* operator new(std::size_t size) {
  ++allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace outboxd::testing {

int64_t ThreadAllocations() { return allocations; }

}  // namespace outboxd::testing
