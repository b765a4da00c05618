// dump_records BOOTSTRAP TOPIC... — prints every record of the topics, from the beginning to the
// end each partition has now, one JSON line per record in (topic, partition, offset) order:
//   {"topic":…,"partition":…,"offset":…,"timestamp":…,"key":base64|null,"value":base64|null,
//    "headers":[[name, base64|null],…]}
// Byte-exact (keys, values and header values are base64), so the lines serve as test vectors
// of what a real Debezium published (tests/debezium/capture) and as the equivalence test's
// input. A topic that does not exist is an error.

#include <librdkafka/rdkafka.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "common/json_string.h"

namespace {

struct RkDeleter {
  void operator()(rd_kafka_t* rk) const { rd_kafka_destroy(rk); }
};
using Kafka = std::unique_ptr<rd_kafka_t, RkDeleter>;

[[noreturn]] void Fail(const std::string& message) {
  std::fprintf(stderr, "dump_records: %s\n", message.c_str());
  std::exit(1);
}

Kafka NewConsumer(const char* bootstrap) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char error[512];
  const std::pair<const char*, const char*> settings[] = {{"bootstrap.servers", bootstrap},
                                                          {"group.id", "outboxd-dump-records"},
                                                          {"enable.auto.commit", "false"},
                                                          {"enable.partition.eof", "true"},
                                                          {"log_level", "3"},
                                                          {"allow.auto.create.topics", "false"}};
  for (const auto& [name, value] : settings) {
    if (rd_kafka_conf_set(conf, name, value, error, sizeof(error)) != RD_KAFKA_CONF_OK) {
      Fail(absl::StrCat(name, ": ", error));
    }
  }
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, error, sizeof(error));
  if (rk == nullptr) Fail(absl::StrCat("rd_kafka_new: ", error));
  return Kafka(rk);
}

int PartitionCount(rd_kafka_t* rk, const char* topic) {
  rd_kafka_topic_t* t = rd_kafka_topic_new(rk, topic, nullptr);
  const rd_kafka_metadata_t* md = nullptr;
  const rd_kafka_resp_err_t err = rd_kafka_metadata(rk, 0, t, &md, 10000);
  rd_kafka_topic_destroy(t);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) Fail(absl::StrCat(topic, ": ", rd_kafka_err2str(err)));
  int count = 0;
  if (md->topic_cnt == 1 && md->topics[0].err == RD_KAFKA_RESP_ERR_NO_ERROR) {
    count = md->topics[0].partition_cnt;
  }
  rd_kafka_metadata_destroy(md);
  if (count == 0) Fail(absl::StrCat("topic ", topic, " does not exist"));
  return count;
}

void AppendBytes(std::string& out, const void* data, size_t size) {
  if (data == nullptr) {
    out += "null";
    return;
  }
  out += '"';
  out += absl::Base64Escape(absl::string_view(static_cast<const char*>(data), size));
  out += '"';
}

void AppendHeaders(std::string& out, const rd_kafka_message_t& m) {
  out += ",\"headers\":[";
  rd_kafka_headers_t* headers = nullptr;
  if (rd_kafka_message_headers(&m, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR) {
    const char* name;
    const void* value;
    size_t size;
    for (size_t i = 0;
         rd_kafka_header_get_all(headers, i, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR;
         ++i) {
      if (i > 0) out += ',';
      out += '[';
      outboxd::AppendJsonString(out, name);
      out += ',';
      AppendBytes(out, value, size);
      out += ']';
    }
  }
  out += ']';
}

std::string ToLine(const rd_kafka_message_t& m) {
  std::string out = "{\"topic\":";
  outboxd::AppendJsonString(out, rd_kafka_topic_name(m.rkt));
  rd_kafka_timestamp_type_t type;
  const int64_t ts = rd_kafka_message_timestamp(&m, &type);
  absl::StrAppend(&out, ",\"partition\":", m.partition, ",\"offset\":", m.offset,
                  ",\"timestamp\":", ts, ",\"key\":");
  AppendBytes(out, m.key, m.key_len);
  out += ",\"value\":";
  AppendBytes(out, m.payload, m.len);
  AppendHeaders(out, m);
  out += '}';
  return out;
}

// Reads one partition from offset 0 to its current end.
void DumpPartition(rd_kafka_t* rk, const char* topic, int partition) {
  int64_t low = 0, high = 0;
  const rd_kafka_resp_err_t err =
      rd_kafka_query_watermark_offsets(rk, topic, partition, &low, &high, 10000);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) Fail(absl::StrCat(topic, ": ", rd_kafka_err2str(err)));
  if (high <= low) return;
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(list, topic, partition)->offset = low;
  rd_kafka_assign(rk, list);
  rd_kafka_topic_partition_list_destroy(list);
  int64_t next = low;
  while (next < high) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 10000);
    if (m == nullptr) Fail(absl::StrCat(topic, "/", partition, ": no record within 10 s"));
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      std::puts(ToLine(*m).c_str());
      next = m->offset + 1;
    } else if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      Fail(absl::StrCat(topic, "/", partition, ": ", rd_kafka_message_errstr(m)));
    }
    rd_kafka_message_destroy(m);
  }
  rd_kafka_assign(rk, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) Fail("usage: dump_records BOOTSTRAP TOPIC...");
  Kafka rk = NewConsumer(argv[1]);
  rd_kafka_poll_set_consumer(rk.get());
  for (int i = 2; i < argc; ++i) {
    const int partitions = PartitionCount(rk.get(), argv[i]);
    for (int p = 0; p < partitions; ++p) DumpPartition(rk.get(), argv[i], p);
  }
  rd_kafka_consumer_close(rk.get());
  return 0;
}
