#!/bin/sh
# kafka-run-class.sh CLASS ARGS... — the distribution's launcher, reduced: java with the jars in
# /opt/kafka/libs and the same variables (KAFKA_HEAP_OPTS, KAFKA_JVM_PERFORMANCE_OPTS,
# KAFKA_LOG4J_OPTS, KAFKA_OPTS). The defaults are smaller than the distribution's (1 GB heap,
# G1): measured lighter on a 2-core machine, as in scripts/kafka.
# shellcheck disable=SC2086  # the *_OPTS variables are lists of flags
exec java ${KAFKA_HEAP_OPTS:--Xms128m -Xmx256m} \
  ${KAFKA_JVM_PERFORMANCE_OPTS:--XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xss512k -XX:-UsePerfData -Djava.awt.headless=true} \
  ${KAFKA_LOG4J_OPTS:--Dlog4j2.configurationFile=/opt/kafka/config/tools-log4j2.properties} \
  ${KAFKA_OPTS:-} -cp '/opt/kafka/libs/*' "$@"
