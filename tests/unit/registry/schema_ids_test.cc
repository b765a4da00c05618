// CachedSchemaIds over a fake registry and clock: subjects, the cache, the modes, backoff.

#include "registry/schema_ids.h"

#include <map>
#include <utility>

#include "gtest/gtest.h"
#include "support/counting_new.h"

namespace outboxd::registry {
namespace {

class FakeClock final : public Clock {
 public:
  std::chrono::steady_clock::time_point SteadyNow() const override { return now; }
  int64_t PostgresNowMicros() const override { return 0; }
  std::chrono::steady_clock::time_point now{};
};

// Records each request; answers from `next` (an id, or an error).
class FakeRegistry final : public RegistryClient {
 public:
  absl::StatusOr<int32_t> Register(std::string_view subject, std::string_view schema) override {
    calls.push_back("register " + std::string(subject) + " " + std::string(schema));
    return next;
  }
  absl::StatusOr<int32_t> Lookup(std::string_view subject, std::string_view schema) override {
    calls.push_back("lookup " + std::string(subject) + " " + std::string(schema));
    return next;
  }
  absl::StatusOr<int32_t> LatestId(std::string_view subject) override {
    calls.push_back("latest " + std::string(subject));
    return next;
  }
  absl::StatusOr<std::string> Compatibility(std::string_view) override { return "BACKWARD"; }
  absl::StatusOr<std::vector<std::string>> Subjects() override {
    return std::vector<std::string>{};
  }

  std::vector<std::string> calls;
  absl::StatusOr<int32_t> next = 1;
};

struct Fixture {
  explicit Fixture(config::SchemaRegistryConfig c = {}) : cfg(std::move(c)) {
    auto client = std::make_unique<FakeRegistry>();
    registry = client.get();
    ids = std::make_unique<CachedSchemaIds>(cfg, std::move(client), clock);
  }
  config::SchemaRegistryConfig cfg;
  FakeClock clock;
  FakeRegistry* registry;
  std::unique_ptr<CachedSchemaIds> ids;
};

TEST(SubjectNameTest, TheThreeConfluentStrategies) {
  std::string out = "stale";
  SubjectName(config::SubjectNameStrategy::kTopic, "outbox.event.Order", false, "union", out);
  EXPECT_EQ(out, "outbox.event.Order-value");
  SubjectName(config::SubjectNameStrategy::kTopic, "outbox.event.Order", true, "string", out);
  EXPECT_EQ(out, "outbox.event.Order-key");
  SubjectName(config::SubjectNameStrategy::kRecord, "t", false, "a.b.Value", out);
  EXPECT_EQ(out, "a.b.Value");
  SubjectName(config::SubjectNameStrategy::kTopicRecord, "t", false, "a.b.Value", out);
  EXPECT_EQ(out, "t-a.b.Value");
}

TEST(CachedSchemaIdsTest, RegistersOncePerSubjectAndSchemaThenAllocatesNothing) {
  Fixture f;
  f.registry->next = 42;
  ASSERT_EQ(*f.ids->IdFor("t1", false, "union", R"(["null","string"])"), 42);
  f.registry->next = 43;
  ASSERT_EQ(*f.ids->IdFor("t2", false, "union", R"(["null","string"])"), 43);
  ASSERT_EQ(*f.ids->IdFor("t1", true, "string", R"("string")"), 43);
  EXPECT_EQ(f.registry->calls, (std::vector<std::string>{R"(register t1-value ["null","string"])",
                                                         R"(register t2-value ["null","string"])",
                                                         R"(register t1-key "string")"}));
  const int64_t before = testing::ThreadAllocations();
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(*f.ids->IdFor("t1", false, "union", R"(["null","string"])"), 42);
    ASSERT_EQ(*f.ids->IdFor("t2", false, "union", R"(["null","string"])"), 43);
  }
  EXPECT_EQ(testing::ThreadAllocations() - before, 0);
  EXPECT_EQ(f.registry->calls.size(), 3u);
}

TEST(CachedSchemaIdsTest, UseLatestVersionAndLookupModes) {
  config::SchemaRegistryConfig latest;
  latest.use_latest_version = true;
  Fixture a(latest);
  ASSERT_TRUE(a.ids->IdFor("t", false, "union", "s").ok());
  EXPECT_EQ(a.registry->calls, std::vector<std::string>{"latest t-value"});

  config::SchemaRegistryConfig lookup;
  lookup.auto_register_schemas = false;
  Fixture b(lookup);
  b.registry->next = absl::NotFoundError("HTTP 404: Schema not found");
  absl::StatusOr<int32_t> id = b.ids->IdFor("t", false, "union", "s");
  EXPECT_EQ(id.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(id.status().message().find("auto_register_schemas = true"), std::string::npos);
  EXPECT_EQ(b.registry->calls, std::vector<std::string>{"lookup t-value s"});
}

TEST(CachedSchemaIdsTest, AnUnreachableRegistryIsBackpressureWithARetryDelay) {
  Fixture f;
  f.registry->next = absl::UnavailableError("schema registry: register: Connection");
  EXPECT_EQ(f.ids->IdFor("t", false, "union", "s").status().code(),
            absl::StatusCode::kResourceExhausted);
  // Inside the delay no request is made.
  f.clock.now += std::chrono::milliseconds(100);
  EXPECT_EQ(f.ids->IdFor("t", false, "union", "s").status().code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(f.registry->calls.size(), 1u);
  f.clock.now += std::chrono::milliseconds(200);
  f.registry->next = 5;
  EXPECT_EQ(*f.ids->IdFor("t", false, "union", "s"), 5);
  EXPECT_EQ(f.registry->calls.size(), 2u);
}

TEST(CachedSchemaIdsTest, IncompatibleAndAuthErrorsPassThrough) {
  Fixture f;
  f.registry->next = absl::FailedPreconditionError("HTTP 409");
  EXPECT_EQ(f.ids->IdFor("t", false, "union", "s").status().code(),
            absl::StatusCode::kFailedPrecondition);
  f.registry->next = absl::UnauthenticatedError("HTTP 401");
  EXPECT_EQ(f.ids->IdFor("t", false, "union", "s").status().code(),
            absl::StatusCode::kUnauthenticated);
}

}  // namespace
}  // namespace outboxd::registry
