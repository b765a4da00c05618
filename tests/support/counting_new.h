#pragma once
// A replacement of the global operator new that counts the allocations of each thread, for
// tests that prove a hot path does not allocate. A replaced operator new must be defined once
// per binary: compile counting_new.cc into such a test executable as one of its sources, never
// into a library that other binaries link.

#include <cstdint>

namespace outboxd::testing {

// How many times this thread has called operator new so far.
int64_t ThreadAllocations();

}  // namespace outboxd::testing
