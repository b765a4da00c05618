#pragma once
// Heap allocations of the whole process, counted by a replacement of the global operator new
// (alloc_counter.cc). For benchmarks only: read it around a timed loop.

#include <cstdint>

namespace outboxd::bench {

// Allocations through operator new since the process started.
uint64_t AllocationsSoFar();

}  // namespace outboxd::bench
