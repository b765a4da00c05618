#include "kafka/delivery_error.h"

#include "common/strings.h"

namespace outboxd::kafka {

ErrorVerdict ClassifyError(rd_kafka_resp_err_t err) {
  switch (err) {
    // The record itself is at fault: too large, an illegal topic name, refused by a policy or
    // by the broker's validation (e.g. a null key on a compacted topic).
    case RD_KAFKA_RESP_ERR__INVALID_ARG:
    case RD_KAFKA_RESP_ERR__KEY_SERIALIZATION:
    case RD_KAFKA_RESP_ERR__VALUE_SERIALIZATION:
    case RD_KAFKA_RESP_ERR_INVALID_MSG_SIZE:
    case RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE:
    case RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION:
    case RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE:
    case RD_KAFKA_RESP_ERR_INVALID_TIMESTAMP:
    case RD_KAFKA_RESP_ERR_POLICY_VIOLATION:
    case RD_KAFKA_RESP_ERR_INVALID_RECORD:
    // Since librdkafka 2.4 a batch that the broker refused for some of its records (KIP-467)
    // fails the others with this code. A replay would batch them with the bad record again
    // and fail the same way forever; dead-lettering them is what 2.0.2 did (it gave every
    // record of the batch the batch's code), and their reason header says why.
    case RD_KAFKA_RESP_ERR__INVALID_DIFFERENT_RECORD:
      return ErrorVerdict::kRecordRejected;
    // Authentication, TLS, ACLs and settings the broker refuses: the same for every record, so
    // dead-lettering would empty the stream into the dead-letter topic.
    case RD_KAFKA_RESP_ERR__SSL:
    case RD_KAFKA_RESP_ERR__AUTHENTICATION:
    case RD_KAFKA_RESP_ERR__UNSUPPORTED_FEATURE:
    case RD_KAFKA_RESP_ERR_INVALID_REQUIRED_ACKS:
    case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_UNSUPPORTED_SASL_MECHANISM:
    case RD_KAFKA_RESP_ERR_ILLEGAL_SASL_STATE:
    case RD_KAFKA_RESP_ERR_UNSUPPORTED_VERSION:
    case RD_KAFKA_RESP_ERR_INVALID_CONFIG:
    case RD_KAFKA_RESP_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_SECURITY_DISABLED:
    case RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED:
    case RD_KAFKA_RESP_ERR_DELEGATION_TOKEN_AUTH_DISABLED:
    case RD_KAFKA_RESP_ERR_DELEGATION_TOKEN_NOT_FOUND:
    case RD_KAFKA_RESP_ERR_DELEGATION_TOKEN_OWNER_MISMATCH:
    case RD_KAFKA_RESP_ERR_DELEGATION_TOKEN_REQUEST_NOT_ALLOWED:
    case RD_KAFKA_RESP_ERR_DELEGATION_TOKEN_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_DELEGATION_TOKEN_EXPIRED:
    case RD_KAFKA_RESP_ERR_INVALID_PRINCIPAL_TYPE:
    case RD_KAFKA_RESP_ERR_UNSUPPORTED_COMPRESSION_TYPE:
    case RD_KAFKA_RESP_ERR_UNACCEPTABLE_CREDENTIAL:
    case RD_KAFKA_RESP_ERR_PRINCIPAL_DESERIALIZATION_FAILURE:
      return ErrorVerdict::kOperatorError;
    // A transactional producer with our transactional.id and a newer epoch exists: only a
    // transactional producer sees these. INVALID_PRODUCER_EPOCH stays a replay below: an
    // idempotent producer sees it when its own epoch is bumped, and rebuilding fixes that (a
    // transactional one gets it as a fatal error, which ClassifyTransactionError reads).
    case RD_KAFKA_RESP_ERR__FENCED:
    case RD_KAFKA_RESP_ERR_PRODUCER_FENCED:
      return ErrorVerdict::kFenced;
    // Outages, leader changes, topics still being created (UNKNOWN_TOPIC_OR_PART), fatal
    // idempotence errors, purges, and codes a producer never sees: a replay loses nothing.
    case RD_KAFKA_RESP_ERR__BEGIN:
    case RD_KAFKA_RESP_ERR__BAD_MSG:
    case RD_KAFKA_RESP_ERR__BAD_COMPRESSION:
    case RD_KAFKA_RESP_ERR__DESTROY:
    case RD_KAFKA_RESP_ERR__FAIL:
    case RD_KAFKA_RESP_ERR__TRANSPORT:
    case RD_KAFKA_RESP_ERR__CRIT_SYS_RESOURCE:
    case RD_KAFKA_RESP_ERR__RESOLVE:
    case RD_KAFKA_RESP_ERR__MSG_TIMED_OUT:
    case RD_KAFKA_RESP_ERR__PARTITION_EOF:
    case RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION:
    case RD_KAFKA_RESP_ERR__FS:
    case RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC:
    case RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN:
    case RD_KAFKA_RESP_ERR__TIMED_OUT:
    case RD_KAFKA_RESP_ERR__QUEUE_FULL:
    case RD_KAFKA_RESP_ERR__ISR_INSUFF:
    case RD_KAFKA_RESP_ERR__NODE_UPDATE:
    case RD_KAFKA_RESP_ERR__WAIT_COORD:
    case RD_KAFKA_RESP_ERR__UNKNOWN_GROUP:
    case RD_KAFKA_RESP_ERR__IN_PROGRESS:
    case RD_KAFKA_RESP_ERR__PREV_IN_PROGRESS:
    case RD_KAFKA_RESP_ERR__EXISTING_SUBSCRIPTION:
    case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
    case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
    case RD_KAFKA_RESP_ERR__CONFLICT:
    case RD_KAFKA_RESP_ERR__STATE:
    case RD_KAFKA_RESP_ERR__UNKNOWN_PROTOCOL:
    case RD_KAFKA_RESP_ERR__NOT_IMPLEMENTED:
    case RD_KAFKA_RESP_ERR__NO_OFFSET:
    case RD_KAFKA_RESP_ERR__OUTDATED:
    case RD_KAFKA_RESP_ERR__TIMED_OUT_QUEUE:
    case RD_KAFKA_RESP_ERR__WAIT_CACHE:
    case RD_KAFKA_RESP_ERR__INTR:
    case RD_KAFKA_RESP_ERR__KEY_DESERIALIZATION:
    case RD_KAFKA_RESP_ERR__VALUE_DESERIALIZATION:
    case RD_KAFKA_RESP_ERR__PARTIAL:
    case RD_KAFKA_RESP_ERR__READ_ONLY:
    case RD_KAFKA_RESP_ERR__NOENT:
    case RD_KAFKA_RESP_ERR__UNDERFLOW:
    case RD_KAFKA_RESP_ERR__INVALID_TYPE:
    case RD_KAFKA_RESP_ERR__RETRY:
    case RD_KAFKA_RESP_ERR__PURGE_QUEUE:
    case RD_KAFKA_RESP_ERR__PURGE_INFLIGHT:
    case RD_KAFKA_RESP_ERR__FATAL:
    case RD_KAFKA_RESP_ERR__INCONSISTENT:
    case RD_KAFKA_RESP_ERR__GAPLESS_GUARANTEE:
    case RD_KAFKA_RESP_ERR__MAX_POLL_EXCEEDED:
    case RD_KAFKA_RESP_ERR__UNKNOWN_BROKER:
    case RD_KAFKA_RESP_ERR__NOT_CONFIGURED:
    case RD_KAFKA_RESP_ERR__APPLICATION:
    case RD_KAFKA_RESP_ERR__ASSIGNMENT_LOST:
    case RD_KAFKA_RESP_ERR__NOOP:
    case RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET:
    case RD_KAFKA_RESP_ERR__LOG_TRUNCATION:
    case RD_KAFKA_RESP_ERR__END:
    case RD_KAFKA_RESP_ERR_UNKNOWN:
    case RD_KAFKA_RESP_ERR_NO_ERROR:
    case RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE:
    case RD_KAFKA_RESP_ERR_INVALID_MSG:
    case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:
    case RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION:
    case RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT:
    case RD_KAFKA_RESP_ERR_BROKER_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_REPLICA_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_STALE_CTRL_EPOCH:
    case RD_KAFKA_RESP_ERR_OFFSET_METADATA_TOO_LARGE:
    case RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION:
    case RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS:
    case RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_NOT_COORDINATOR:
    case RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS:
    case RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION:
    case RD_KAFKA_RESP_ERR_INCONSISTENT_GROUP_PROTOCOL:
    case RD_KAFKA_RESP_ERR_INVALID_GROUP_ID:
    case RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID:
    case RD_KAFKA_RESP_ERR_INVALID_SESSION_TIMEOUT:
    case RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS:
    case RD_KAFKA_RESP_ERR_INVALID_COMMIT_OFFSET_SIZE:
    case RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS:
    case RD_KAFKA_RESP_ERR_INVALID_PARTITIONS:
    case RD_KAFKA_RESP_ERR_INVALID_REPLICATION_FACTOR:
    case RD_KAFKA_RESP_ERR_INVALID_REPLICA_ASSIGNMENT:
    case RD_KAFKA_RESP_ERR_NOT_CONTROLLER:
    case RD_KAFKA_RESP_ERR_INVALID_REQUEST:
    case RD_KAFKA_RESP_ERR_UNSUPPORTED_FOR_MESSAGE_FORMAT:
    case RD_KAFKA_RESP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER:
    case RD_KAFKA_RESP_ERR_DUPLICATE_SEQUENCE_NUMBER:
    case RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH:
    case RD_KAFKA_RESP_ERR_INVALID_TXN_STATE:
    case RD_KAFKA_RESP_ERR_INVALID_PRODUCER_ID_MAPPING:
    case RD_KAFKA_RESP_ERR_INVALID_TRANSACTION_TIMEOUT:
    case RD_KAFKA_RESP_ERR_CONCURRENT_TRANSACTIONS:
    case RD_KAFKA_RESP_ERR_TRANSACTION_COORDINATOR_FENCED:
    case RD_KAFKA_RESP_ERR_OPERATION_NOT_ATTEMPTED:
    case RD_KAFKA_RESP_ERR_KAFKA_STORAGE_ERROR:
    case RD_KAFKA_RESP_ERR_LOG_DIR_NOT_FOUND:
    case RD_KAFKA_RESP_ERR_UNKNOWN_PRODUCER_ID:
    case RD_KAFKA_RESP_ERR_REASSIGNMENT_IN_PROGRESS:
    case RD_KAFKA_RESP_ERR_NON_EMPTY_GROUP:
    case RD_KAFKA_RESP_ERR_GROUP_ID_NOT_FOUND:
    case RD_KAFKA_RESP_ERR_FETCH_SESSION_ID_NOT_FOUND:
    case RD_KAFKA_RESP_ERR_INVALID_FETCH_SESSION_EPOCH:
    case RD_KAFKA_RESP_ERR_LISTENER_NOT_FOUND:
    case RD_KAFKA_RESP_ERR_TOPIC_DELETION_DISABLED:
    case RD_KAFKA_RESP_ERR_FENCED_LEADER_EPOCH:
    case RD_KAFKA_RESP_ERR_UNKNOWN_LEADER_EPOCH:
    case RD_KAFKA_RESP_ERR_STALE_BROKER_EPOCH:
    case RD_KAFKA_RESP_ERR_OFFSET_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_MEMBER_ID_REQUIRED:
    case RD_KAFKA_RESP_ERR_PREFERRED_LEADER_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_GROUP_MAX_SIZE_REACHED:
    case RD_KAFKA_RESP_ERR_FENCED_INSTANCE_ID:
    case RD_KAFKA_RESP_ERR_ELIGIBLE_LEADERS_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_ELECTION_NOT_NEEDED:
    case RD_KAFKA_RESP_ERR_NO_REASSIGNMENT_IN_PROGRESS:
    case RD_KAFKA_RESP_ERR_GROUP_SUBSCRIBED_TO_TOPIC:
    case RD_KAFKA_RESP_ERR_UNSTABLE_OFFSET_COMMIT:
    case RD_KAFKA_RESP_ERR_THROTTLING_QUOTA_EXCEEDED:
    case RD_KAFKA_RESP_ERR_RESOURCE_NOT_FOUND:
    case RD_KAFKA_RESP_ERR_DUPLICATE_RESOURCE:
    case RD_KAFKA_RESP_ERR_INCONSISTENT_VOTER_SET:
    case RD_KAFKA_RESP_ERR_INVALID_UPDATE_VERSION:
    case RD_KAFKA_RESP_ERR_FEATURE_UPDATE_FAILED:
    // New in librdkafka 2.1-2.8: a topic deleted and re-created under the same name (topic
    // ids, KIP-516), the next-generation consumer group (KIP-848) and client telemetry
    // (KIP-714). A producer's delivery reports carry none of them.
    case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_ID:
    case RD_KAFKA_RESP_ERR_FENCED_MEMBER_EPOCH:
    case RD_KAFKA_RESP_ERR_UNRELEASED_INSTANCE_ID:
    case RD_KAFKA_RESP_ERR_UNSUPPORTED_ASSIGNOR:
    case RD_KAFKA_RESP_ERR_STALE_MEMBER_EPOCH:
    case RD_KAFKA_RESP_ERR_UNKNOWN_SUBSCRIPTION_ID:
    case RD_KAFKA_RESP_ERR_TELEMETRY_TOO_LARGE:
    case RD_KAFKA_RESP_ERR_END_ALL:
      return ErrorVerdict::kReplay;
  }
  return ErrorVerdict::kReplay;  // Not a librdkafka 2.8.0 code: replaying is the safe answer.
}

ErrorVerdict ClassifyTransactionError(const rd_kafka_error_t* error) {
  const rd_kafka_resp_err_t err = rd_kafka_error_code(error);
  const bool fatal = rd_kafka_error_is_fatal(error) != 0;
  // Brokers before Kafka 2.7 (KIP-588) say INVALID_PRODUCER_EPOCH where newer ones say
  // PRODUCER_FENCED; as a fatal transactional error it means the same.
  if (err == RD_KAFKA_RESP_ERR__FENCED || err == RD_KAFKA_RESP_ERR_PRODUCER_FENCED ||
      (fatal && err == RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH)) {
    return ErrorVerdict::kFenced;
  }
  if (!fatal && rd_kafka_error_txn_requires_abort(error) != 0) {
    return ErrorVerdict::kAbortTransaction;
  }
  // Fatal (rebuild the producer), or neither fatal nor abortable, retriable or not: the
  // transaction's state is unknown, so rebuild and replay rather than retry (see the header).
  return ClassifyError(err) == ErrorVerdict::kOperatorError ? ErrorVerdict::kOperatorError
                                                            : ErrorVerdict::kReplay;
}

std::string DescribeError(rd_kafka_resp_err_t err) {
  return Concat(rd_kafka_err2name(err), ": ", rd_kafka_err2str(err));
}

std::string OperatorFix(rd_kafka_resp_err_t err, std::string_view topic) {
  if (ClassifyError(err) != ErrorVerdict::kOperatorError) return "";
  if (err == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED) {
    return Concat("grant the producer's principal Write and Describe on topic ", topic,
                  " (kafka-acls --add --operation Write --operation Describe --topic ", topic, ")");
  }
  if (err == RD_KAFKA_RESP_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED) {
    return "grant the principal Write and Describe on the producer's transactional.id "
           "(kafka-acls --add --operation Write --operation Describe --transactional-id <id>)";
  }
  if (err == RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED) {
    return "grant the principal IdempotentWrite on the cluster (outboxd's producer is "
           "idempotent)";
  }
  if (err == RD_KAFKA_RESP_ERR_UNSUPPORTED_COMPRESSION_TYPE ||
      err == RD_KAFKA_RESP_ERR_INVALID_CONFIG || err == RD_KAFKA_RESP_ERR_INVALID_REQUIRED_ACKS ||
      err == RD_KAFKA_RESP_ERR_UNSUPPORTED_VERSION ||
      err == RD_KAFKA_RESP_ERR__UNSUPPORTED_FEATURE) {
    return "check the [kafka] properties against what the broker and the topic accept";
  }
  // The remaining operator errors are all about credentials and TLS.
  return "check security.protocol, sasl.* and ssl.* in [kafka] against the broker's listener "
         "and the principal's credentials";
}

bool TlsAtPlaintextListener(rd_kafka_resp_err_t err, std::string_view reason) {
  // librdkafka's rdkafka_ssl.c appends these words to a handshake the peer disconnected.
  return (err == RD_KAFKA_RESP_ERR__TRANSPORT || err == RD_KAFKA_RESP_ERR__SSL) &&
         reason.find("connecting to a PLAINTEXT broker listener") != std::string_view::npos;
}

std::optional<std::string> OperatorErrorMessage(rd_kafka_resp_err_t err, std::string_view reason,
                                                bool reached_broker) {
  if (err == RD_KAFKA_RESP_ERR__TRANSPORT && !reached_broker &&
      TlsAtPlaintextListener(err, reason)) {
    return Concat("Kafka TLS handshake failed: ", reason, " (", rd_kafka_err2name(err),
                  "); the listener in bootstrap.servers speaks PLAINTEXT: check security.protocol, "
                  "sasl.* and ssl.* in [kafka] against the broker's listener (SSL and SASL_SSL "
                  "need a TLS listener; PLAINTEXT or SASL_PLAINTEXT talk to this one)");
  }
  if (ClassifyError(err) != ErrorVerdict::kOperatorError) return std::nullopt;
  const bool authorization = err == RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED ||
                             err == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED ||
                             err == RD_KAFKA_RESP_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
  const std::string_view what =
      authorization ? "Kafka refused the producer (not authorized)" : "Kafka authentication failed";
  return Concat(what, ": ", reason, " (", rd_kafka_err2name(err), "); ", OperatorFix(err, "TOPIC"));
}

std::string ProducerFencedMessage(std::string_view reason) {
  return FencedMessage(Concat("Kafka fenced the producer (", reason, ")"));
}

std::string FencedMessage(std::string_view what) {
  return Concat(what,
                ": another outboxd instance took over the slot's transactional.id ([relay] "
                "transactional_id) and owns the slot now; stopping (exit 8) rather than fencing "
                "it back");
}

}  // namespace outboxd::kafka
