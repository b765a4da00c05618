"""bench/naive_relay as the latency peer of the steady shapes: one produce per insert, at once
(linger.ms=0, acks=all, idempotent), from its own slot. outboxd's p99 minus its p99 in the
same run is the part of the latency that is outboxd's own (issue 9 target: <= 2 ms)."""

import os
import signal
import subprocess
import time

from .competitors import BENCH_PUBLICATION
from .debezium import end_offsets
from .services import proc_cpu_s, proc_hwm_kb, wait_for


class NaiveRelay:
    name = "naive-relay"

    def __init__(self, svc, binary, workdir):
        self.svc = svc
        self.binary = binary
        self.workdir = workdir

    def slot(self, run):
        return f"b_naive_{run}"

    def topic(self, aggregate):
        return f"naive.{aggregate}"

    def start(self, run, aggregate, partitions):
        topic = self.topic(aggregate)
        self.svc.create_topic(topic, partitions)
        log_path = os.path.join(self.workdir, f"naive-{run}.log")
        with open(log_path, "ab") as log_file:
            self.proc = subprocess.Popen(self.svc.wrap(
                [self.binary, self.svc.conninfo, self.slot(run), BENCH_PUBLICATION,
                 self.svc.bootstrap, topic]), stdout=log_file, stderr=log_file)
        self.log_path = log_path
        return self.proc.pid

    def wait_records(self, aggregate, target, timeout_s):
        def done():
            if self.proc.poll() is not None:
                raise RuntimeError(f"naive_relay exited {self.proc.returncode}; see "
                                   f"{self.log_path}")
            return end_offsets(self.svc, self.topic(aggregate)) >= target
        wait_for(done, timeout_s, f"naive_relay to publish {target} records", poll_s=0.25)

    def stop(self):
        pid = self.proc.pid
        cpu, hwm = proc_cpu_s(pid), proc_hwm_kb(pid)
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=30)
        return cpu, hwm, time.monotonic()
