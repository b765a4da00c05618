#!/bin/sh
# kafka-server-start.sh server.properties — the broker, logging to stdout, with a bigger heap
# than the tools.
export KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m}"
export KAFKA_LOG4J_OPTS="${KAFKA_LOG4J_OPTS:--Dlog4j2.configurationFile=/opt/kafka/config/log4j2.properties}"
exec /opt/kafka/bin/kafka-run-class.sh kafka.Kafka "$@"
