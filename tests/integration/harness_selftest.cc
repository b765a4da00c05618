// Proves the harness itself against the real services, with no outboxd involved, so a failure
// elsewhere points at outboxd rather than at the tools that watch it. Also checks that
// librdkafka's murmur2_random agrees with the Java known answers the partition test uses.

#include <librdkafka/rdkafka.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "harness/config_writer.h"
#include "harness/env.h"
#include "harness/kafka_admin.h"
#include "harness/kafka_consumer.h"
#include "harness/log_tail.h"
#include "harness/outboxd_process.h"
#include "harness/pg_client.h"
#include "harness/slot.h"
#include "harness/status_macros.h"
#include "harness/writer_pool.h"
#include "known_partitions.h"

namespace outboxd::it {
namespace {

class HarnessSelfTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<TestEnv> env = LoadTestEnv();
    if (!env.ok()) GTEST_FAIL() << env.status().message();
    env_ = *env;
    name_ = absl::StrCat("it_selftest_", getpid(), "_", absl::ToUnixMillis(absl::Now()) % 100000);
    dir_ = (std::filesystem::path(env_.log_dir) / name_).string();
    std::filesystem::create_directories(dir_);
  }
  TestEnv env_;
  std::string name_;
  std::string dir_;
};

TEST_F(HarnessSelfTest, SqlHelpers) {
  IT_ASSERT_OK_AND_ASSIGN(PgClient pg, PgClient::Connect(env_.pg_conninfo));
  IT_ASSERT_OK_AND_ASSIGN(int64_t two, pg.QueryInt("SELECT $1::int + 1", {"1"}));
  EXPECT_EQ(two, 2);
  IT_ASSERT_OK_AND_ASSIGN(std::optional<std::string> null, pg.QueryOptional("SELECT NULL"));
  EXPECT_FALSE(null.has_value());
  IT_ASSERT_OK_AND_ASSIGN(std::optional<std::string> quoted,
                          pg.QueryOptional(absl::StrCat("SELECT ", QuoteLiteral("it's"))));
  EXPECT_EQ(quoted, "it's");
  EXPECT_FALSE(pg.Exec("SELECT * FROM no_such_table_anywhere").ok());
  IT_ASSERT_OK_AND_ASSIGN(std::optional<std::string> role,
                          pg.QueryOptional("SELECT rolreplication::text FROM pg_roles "
                                           "WHERE rolname = current_user"));
  EXPECT_EQ(role, "true") << "the test role must have REPLICATION";

  // Concurrent writers, each on its own connection.
  const std::string table = absl::StrCat(name_, "_w");
  IT_ASSERT_OK(pg.Exec(absl::StrCat("CREATE TABLE ", table, " (w int, n int)")));
  {
    WriterPool writers(env_.pg_conninfo, 3, [&](int w, PgClient& c, const std::atomic<bool>&) {
      for (int n = 0; n < 100; ++n) {
        IT_RETURN_IF_ERROR(
            c.Exec(absl::StrCat("INSERT INTO ", table, " VALUES (", w, ", ", n, ")")));
      }
      return absl::OkStatus();
    });
    IT_ASSERT_OK(writers.Join());
  }
  IT_ASSERT_OK_AND_ASSIGN(int64_t rows,
                          pg.QueryInt(absl::StrCat("SELECT count(DISTINCT (w, n)) FROM ", table)));
  EXPECT_EQ(rows, 300);
  IT_ASSERT_OK(pg.Exec(absl::StrCat("DROP TABLE ", table)));
}

TEST_F(HarnessSelfTest, SlotHelpers) {
  IT_ASSERT_OK_AND_ASSIGN(PgClient pg, PgClient::Connect(env_.pg_conninfo));
  IT_ASSERT_OK_AND_ASSIGN(PgClient admin, PgClient::Connect(env_.pg_admin_conninfo));
  IT_ASSERT_OK_AND_ASSIGN(std::optional<int64_t> none, SlotConfirmedPosition(pg, name_));
  EXPECT_FALSE(none.has_value());
  IT_ASSERT_OK(
      pg.Query("SELECT pg_create_logical_replication_slot($1, 'pgoutput')", {name_}).status());
  IT_ASSERT_OK_AND_ASSIGN(std::optional<int64_t> confirmed, SlotConfirmedPosition(pg, name_));
  IT_ASSERT_OK_AND_ASSIGN(int64_t wal, CurrentWalPosition(pg));
  ASSERT_TRUE(confirmed.has_value());
  EXPECT_GT(*confirmed, 0);
  EXPECT_LE(*confirmed, wal);
  IT_ASSERT_OK_AND_ASSIGN(std::optional<std::string> text,
                          pg.QueryOptional("SELECT confirmed_flush_lsn::text FROM "
                                           "pg_replication_slots WHERE slot_name = $1",
                                           {name_}));
  EXPECT_EQ(text, FormatLsn(*confirmed));
  IT_ASSERT_OK(DropSlotIfExists(admin, name_, absl::Seconds(10)));
  IT_ASSERT_OK_AND_ASSIGN(none, SlotConfirmedPosition(pg, name_));
  EXPECT_FALSE(none.has_value());
  IT_EXPECT_OK(DropSlotIfExists(admin, name_, absl::Seconds(10)));  // Gone already: fine.
}

struct ProducerDeleter {
  void operator()(rd_kafka_t* rk) const { rd_kafka_destroy(rk); }
};
using Producer = std::unique_ptr<rd_kafka_t, ProducerDeleter>;

Producer NewProducer(const std::string& bootstrap) {
  char error[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  if (rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), error, sizeof(error)) !=
          RD_KAFKA_CONF_OK ||
      rd_kafka_conf_set(conf, "partitioner", "murmur2_random", error, sizeof(error)) !=
          RD_KAFKA_CONF_OK) {
    rd_kafka_conf_destroy(conf);
    return nullptr;
  }
  Producer producer(rd_kafka_new(RD_KAFKA_PRODUCER, conf, error, sizeof(error)));
  if (producer == nullptr) rd_kafka_conf_destroy(conf);
  return producer;
}

rd_kafka_resp_err_t Produce(rd_kafka_t* producer, const std::string& topic, const std::string& key,
                            const std::string& value, const std::string& id) {
  return rd_kafka_producev(
      producer, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_KEY(key.data(), key.size()),
      RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
      RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
      RD_KAFKA_V_HEADER("id", id.data(), static_cast<ssize_t>(id.size())), RD_KAFKA_V_END);
}

TEST_F(HarnessSelfTest, ProduceAndConsumeWithJavaCompatiblePartitions) {
  const std::string topic = absl::StrCat(name_, ".Part");
  IT_ASSERT_OK(CreateTopic(env_.kafka_bootstrap, topic, kKnownPartitionCount));
  EXPECT_EQ(CreateTopic(env_.kafka_bootstrap, topic, kKnownPartitionCount).code(),
            absl::StatusCode::kAlreadyExists);

  Producer producer = NewProducer(env_.kafka_bootstrap);
  ASSERT_NE(producer, nullptr);
  for (const KnownPartition& k : kJavaMurmur2Partitions) {
    const rd_kafka_resp_err_t err =
        Produce(producer.get(), topic, k.key, absl::StrCat(R"({"key": ")", k.key, R"("})"),
                absl::StrCat("id-", k.key));
    ASSERT_EQ(err, RD_KAFKA_RESP_ERR_NO_ERROR) << rd_kafka_err2str(err);
  }
  ASSERT_EQ(rd_kafka_flush(producer.get(), 30000), RD_KAFKA_RESP_ERR_NO_ERROR);

  IT_ASSERT_OK_AND_ASSIGN(
      std::vector<KafkaRecord> records,
      ConsumeFromBeginning(env_.kafka_bootstrap,
                           {{topic}, std::size(kJavaMurmur2Partitions), absl::Seconds(30)}));
  ASSERT_EQ(records.size(), std::size(kJavaMurmur2Partitions));
  std::map<std::string, int32_t> want;
  for (const KnownPartition& k : kJavaMurmur2Partitions) want[k.key] = k.partition;
  for (const KafkaRecord& r : records) {
    ASSERT_TRUE(r.key.has_value());
    EXPECT_EQ(r.partition, want[*r.key]) << "key " << *r.key;
    EXPECT_EQ(r.value, absl::StrCat(R"({"key": ")", *r.key, R"("})"));
    EXPECT_EQ(r.Header("id"), absl::StrCat("id-", *r.key));
    EXPECT_EQ(r.topic, topic);
  }
  IT_EXPECT_OK(DeleteTopics(env_.kafka_bootstrap, {topic}));
}

// The consumer starts before its topics exist (as the tests do before outboxd's first record
// auto-creates them) and picks them up when they appear, from offset 0.
TEST_F(HarnessSelfTest, ConsumerPicksUpTopicsThatAppearLater) {
  const std::vector<std::string> topics = {name_ + ".A", name_ + ".B"};
  std::thread later([&] {
    absl::SleepFor(absl::Seconds(1));
    Producer producer = NewProducer(env_.kafka_bootstrap);
    if (producer == nullptr) return;
    for (int i = 0; i < 10; ++i) {
      Produce(producer.get(), topics[static_cast<size_t>(i % 2)], absl::StrCat("k", i % 3),
              absl::StrCat(i), absl::StrCat(i));
    }
    rd_kafka_flush(producer.get(), 30000);
  });
  absl::StatusOr<std::vector<KafkaRecord>> records =
      ConsumeFromBeginning(env_.kafka_bootstrap, {topics, 10, absl::Seconds(30)});
  later.join();
  IT_ASSERT_OK(records.status());
  EXPECT_EQ(records->size(), 10u);
  IT_EXPECT_OK(DeleteTopics(env_.kafka_bootstrap, topics));
}

TEST_F(HarnessSelfTest, ProcessLauncher) {
  // A stand-in daemon: logs its arguments, exits 0 on SIGTERM.
  const std::string script = absl::StrCat(dir_, "/fake-daemon.sh");
  {
    std::ofstream out(script);
    out << "#!/bin/sh\necho \"args: $*\" >&2\ntrap 'echo draining >&2; exit 0' TERM\n"
           "while :; do sleep 0.05; done\n";
  }
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  OutboxdConfig config;
  config.pg_conninfo = "host=x \"quoted\"";
  config.tables = {"public.t"};
  config.topic_pattern = "p.${aggregatetype}";
  IT_ASSERT_OK(WriteConfig(config, dir_ + "/c.toml"));
  EXPECT_NE(RenderConfig(config).find(R"(conninfo = "host=x \"quoted\"")"), std::string::npos);

  const std::string log = dir_ + "/fake.log";
  IT_ASSERT_OK_AND_ASSIGN(std::unique_ptr<OutboxdProcess> p,
                          OutboxdProcess::Start(script, dir_ + "/c.toml", log));
  EXPECT_TRUE(p->Running());
  EXPECT_EQ(p->WaitForExit(absl::Milliseconds(300)).status().code(),
            absl::StatusCode::kDeadlineExceeded);
  IT_ASSERT_OK_AND_ASSIGN(ExitStatus exit, p->Stop(absl::Seconds(5)));
  EXPECT_TRUE(exit.ExitedZero()) << exit.ToString();
  EXPECT_EQ(CountLinesContaining(log, absl::StrCat("args: run --config ", dir_, "/c.toml")), 1)
      << LogTail(log, 10);
  EXPECT_EQ(CountLinesContaining(log, "draining"), 1) << LogTail(log, 10);

  IT_ASSERT_OK_AND_ASSIGN(std::unique_ptr<OutboxdProcess> q,
                          OutboxdProcess::Start(script, dir_ + "/c.toml", log));
  EXPECT_EQ(q->Kill().signal, SIGKILL);
  EXPECT_FALSE(q->Running());
}

}  // namespace
}  // namespace outboxd::it
