// naive_relay: the latency peer of bench/run's steady shapes (issue 9). It streams its own
// pgoutput slot and produces every outbox insert at once (linger.ms=0, acks=all, idempotent):
// no batching, no ordering bookkeeping, no confirm discipline. What it adds over the walsender
// is one produce per row, so outboxd's p99 minus its p99 in the same run is outboxd's own share.
//
// Not a relay to use: it confirms what it has received (not what Kafka acknowledged), so a crash
// loses records. Usage: naive_relay CONNINFO SLOT PUBLICATION BOOTSTRAP TOPIC
// Rows are public.outbox as bench/lib/shapes.py creates it: key aggregateid, value payload.

#include <librdkafka/rdkafka.h>
#include <poll.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <string>
#include <variant>

#include "common/clock.h"
#include "pg/connection.h"
#include "pg/replication_protocol.h"
#include "pg/replication_stream.h"
#include "pgoutput/decoder.h"

namespace {

using outboxd::Lsn;
namespace pg = outboxd::pg;
namespace pgoutput = outboxd::pgoutput;

volatile std::sig_atomic_t stop_requested = 0;

int Fail(const std::string& what) {
  std::fprintf(stderr, "naive_relay: %s\n", what.c_str());
  return 1;
}

rd_kafka_t* NewProducer(const char* bootstrap) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  const char* settings[][2] = {{"bootstrap.servers", bootstrap},
                               {"linger.ms", "0"},
                               {"acks", "all"},
                               {"enable.idempotence", "true"}};
  for (const auto& kv : settings) {
    if (rd_kafka_conf_set(conf, kv[0], kv[1], err, sizeof err) != RD_KAFKA_CONF_OK) {
      std::fprintf(stderr, "naive_relay: %s\n", err);
      return nullptr;
    }
  }
  return rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
}

// The 3rd and 5th columns (aggregateid, payload) of an outbox row.
void Produce(rd_kafka_t* producer, const char* topic, const pgoutput::Insert& insert) {
  pgoutput::TupleData::Reader columns(insert.new_tuple);
  std::string_view key;
  std::string_view value;
  for (int i = 1; !columns.Done(); ++i) {
    pgoutput::ColumnValue column = columns.Next();
    if (i == 3) key = column.data;
    if (i == 5) value = column.data;
  }
  while (rd_kafka_producev(producer, RD_KAFKA_V_TOPIC(topic),
                           RD_KAFKA_V_KEY(const_cast<char*>(key.data()), key.size()),
                           RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                           RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                           RD_KAFKA_V_END) == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
    rd_kafka_poll(producer, 10);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    return Fail("usage: naive_relay CONNINFO SLOT PUBLICATION BOOTSTRAP TOPIC");
  }
  std::signal(SIGTERM, [](int) { stop_requested = 1; });
  std::signal(SIGINT, [](int) { stop_requested = 1; });
  const char* topic = argv[5];
  rd_kafka_t* producer = NewProducer(argv[4]);
  if (producer == nullptr) return Fail("cannot create the Kafka producer");
  auto conn = pg::Connection::Open(argv[1]);
  if (!conn.ok()) return Fail(std::string(conn.status().message()));
  auto stream =
      pg::ReplicationStream::Start(std::move(*conn), {.slot = argv[2], .publication = argv[3]});
  if (!stream.ok()) return Fail(std::string(stream.status().message()));
  outboxd::SystemClock clock;
  Lsn received;
  int64_t last_status_us = 0;
  while (stop_requested == 0) {
    rd_kafka_poll(producer, 0);
    auto message = stream->Read();
    if (!message.ok()) return Fail(std::string(message.status().message()));
    bool reply = false;
    if (!message->has_value()) {
      pollfd fd{.fd = stream->socket(), .events = POLLIN, .revents = 0};
      poll(&fd, 1, 10);
    } else {
      auto copy = pg::ParseCopyMessage((*message)->view());
      if (!copy.ok()) return Fail(std::string(copy.status().message()));
      if (const auto* keepalive = std::get_if<pg::Keepalive>(&*copy)) {
        reply = keepalive->reply_requested;
        received = std::max(received, keepalive->wal_end);
      } else {
        const auto& xlog = std::get<pg::XLogData>(*copy);
        received = std::max(received, xlog.wal_start);
        auto decoded = pgoutput::Decode(xlog.data);
        if (!decoded.ok()) return Fail(std::string(decoded.status().message()));
        if (const auto* insert = std::get_if<pgoutput::Insert>(&*decoded)) {
          Produce(producer, topic, *insert);
        }
      }
    }
    int64_t now_us = clock.PostgresNowMicros();
    if (reply || now_us - last_status_us > 1'000'000) {
      auto sent = stream->SendStatus(pg::EncodeStandbyStatus(received, received, now_us, false));
      if (!sent.ok()) return Fail(std::string(sent.message()));
      last_status_us = now_us;
    }
  }
  rd_kafka_flush(producer, 10'000);
  rd_kafka_destroy(producer);
  return 0;
}
