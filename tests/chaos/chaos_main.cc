// main() of the chaos test binaries: GoogleTest's, plus --long (same as OUTBOXD_CHAOS_LONG=1):
// hundreds of faults instead of the CI run's few dozen; --exactly-once (same as
// OUTBOXD_CHAOS_DELIVERY=exactly_once); --parallel-slots=N (same as
// OUTBOXD_CHAOS_PARALLEL_SLOTS=N).

#include <cstdlib>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "support/chaos_fixture.h"

int main(int argc, char** argv) {
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--long") == 0) {
      outboxd::chaos::SetLongMode(true);
    } else if (std::strcmp(argv[i], "--exactly-once") == 0) {
      outboxd::chaos::SetExactlyOnce(true);
    } else if (std::strncmp(argv[i], "--parallel-slots=", 17) == 0) {
      outboxd::chaos::SetParallelSlots(std::atoi(argv[i] + 17));
    } else {
      args.push_back(argv[i]);
    }
  }
  int count = static_cast<int>(args.size());
  args.push_back(nullptr);
  ::testing::InitGoogleTest(&count, args.data());
  return RUN_ALL_TESTS();
}
