#pragma once
// What a librdkafka error means for the relay (DESIGN.md invariants 6 and 7). The one place
// that decides; every code is classified explicitly, so a code added by a newer librdkafka is
// a compile warning here rather than a silent default.

#include <librdkafka/rdkafka.h>

#include <optional>
#include <string>
#include <string_view>

#include "kafka/error_verdict.h"

namespace outboxd::kafka {

// The verdict on `err` from a delivery report, a produce call or an error callback.
ErrorVerdict ClassifyError(rd_kafka_resp_err_t err);

// The verdict on a failed call of librdkafka's transactional API (init_transactions,
// begin/commit/abort_transaction, send_offsets_to_transaction), from the flags librdkafka sets
// on `error` (non-null; borrowed for the call): fenced first, then fatal (rebuild the
// producer: kReplay, or kOperatorError for credentials and ACLs), then txn_requires_abort
// (kAbortTransaction). A merely retriable error is not retried as is: without KIP-890 a commit
// retried after a timeout is ambiguous (DESIGN.md section 4), so it replays like the rest.
ErrorVerdict ClassifyTransactionError(const rd_kafka_error_t* error);

// "NAME: description" of `err`, e.g. "MSG_SIZE_TOO_LARGE: Broker: Message size too large".
std::string DescribeError(rd_kafka_resp_err_t err);

// The fix an operator applies for an error ClassifyError calls kOperatorError, naming `topic`
// when it is an ACL problem. Empty for other errors.
std::string OperatorFix(rd_kafka_resp_err_t err, std::string_view topic);

// Whether librdkafka's error callback says a TLS client (security.protocol SSL or SASL_SSL) met
// a PLAINTEXT listener: the peer hung up during the handshake, "SSL handshake failed:
// Disconnected: connecting to a PLAINTEXT broker listener?". librdkafka 2.8 reports that as
// _TRANSPORT (2.0.2 said _SSL), because a broker going away mid-handshake looks the same.
bool TlsAtPlaintextListener(rd_kafka_resp_err_t err, std::string_view reason);

// What to tell the operator when librdkafka's error callback reports `err` with `reason`: the
// message naming the cause and the fix when `err` is an operator error (the client cannot
// authenticate or set up TLS, or is not authorized), nullopt otherwise. A TLS client at a
// PLAINTEXT listener (TlsAtPlaintextListener) is one only while `reached_broker` is false
// (ReachedABroker): once a broker answered with these settings, it is an outage to retry.
std::optional<std::string> OperatorErrorMessage(rd_kafka_resp_err_t err, std::string_view reason,
                                                bool reached_broker);

}  // namespace outboxd::kafka
