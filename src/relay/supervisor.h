#pragma once
// The life of a row, from the socket to the confirmed LSN:
//   1. pg/replication_stream.cc reads a CopyData message off the walsender's socket;
//   2. relay/replication_session.cc unframes it (pg/replication_protocol.cc) and answers
//      keepalives; relay/slot_stream.cc reads it in bounded batches for its slot;
//   3. pgoutput/decoder.cc decodes it; relay/change_handler.cc frames Begin/Commit as a
//      transaction in the slot's relay/ack_tracker.cc;
//   4. outbox/mapper.cc reads, checks and routes an outbox Insert (topic, partition, time), and
//      the run's encoder (encoding/encoder_factory.h) writes its key, value and headers;
//   5. relay/publisher.cc, shared by every slot, hands it to kafka/producer.cc (librdkafka)
//      with an origin naming its slot's stream and transaction; a row that cannot be mapped or
//      produced goes to the dead-letter topic instead;
//   6. the delivery report comes back through Publisher::OnDelivered
//      (relay/publisher_delivery.cc), which acknowledges the record in the AckTracker of the
//      stream that produced it (exactly_once: relay/slot_stream_kafka.cc commits the Kafka
//      transaction, its position record inside, and the commit is what confirms);
//   7. once the transaction and all before it are acknowledged, the ReplicationSession asks
//      its ConfirmSource (relay/confirm_source.h) and confirms Commit.end_lsn to Postgres.
// relay/relay_loop.cc is the thin loop that polls the sockets, the producer and the stop
// signal; relay/stream_supervisor.cc restarts one slot's stream; this file restarts all.
//
// Restart policy of the whole relay: one publisher (one producer) and a stream per slot,
// rebuilt together after a Kafka-side failure; a Postgres-side failure restarts only its
// stream (relay/stream_supervisor.h).

#include "absl/status/status.h"
#include "relay/context.h"

namespace outboxd::relay {

// Runs the relay until `context.stop` fires, then returns what the drained shutdown returned
// (OK when the final confirmation was sent): a stop request always ends the run, even when the
// shutdown itself failed. Retriable failures (Unavailable: database or broker down, slot held
// by another instance, failed delivery) restart from the slots' confirmed LSNs after an
// exponential backoff; any other error is returned for the caller to exit with.
absl::Status RunRelay(RelayContext& context);

}  // namespace outboxd::relay
