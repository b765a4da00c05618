"""The competitors of the matrix: each drains the same WAL from its own slot.

pg_recvlogical writes the decoded stream to /dev/null: the walsender's decoding speed, the
ceiling of one slot. outboxd publishes into Kafka with acks=all and counts as done when the
slot's confirmed_flush_lsn reaches the end of the backlog (what it tells Postgres is safe).
"""

import datetime
import os
import signal
import subprocess
import time

from .services import log, proc_cpu_s, proc_hwm_kb, proc_rss_split_kb, wait_for, wait_usage

BENCH_PUBLICATION = "bench"


class RecvLogical:
    name = "pg_recvlogical"

    def __init__(self, svc):
        self.svc = svc

    def slot(self, shape):
        return f"b_recv_{shape}"

    def drain(self, shape, end_lsn):
        start = time.monotonic()
        proc = subprocess.Popen(self.svc.wrap(
            [os.path.join(self.svc.pg_bin, "pg_recvlogical"), "-d", self.svc.admin, "--slot",
             self.slot(shape), "--start", "--endpos", end_lsn, "-o", "proto_version=1", "-o",
             f"publication_names={BENCH_PUBLICATION}", "-f", "/dev/null", "--no-loop"]))
        usage, rc = wait_usage(proc)
        if rc != 0:
            raise RuntimeError(f"pg_recvlogical exited {rc}")
        return {"seconds": time.monotonic() - start, "cpu_s": usage.cpu_s,
                "peak_rss_kb": usage.peak_rss_kb}

    def start_steady(self, shape):
        self.proc = subprocess.Popen(self.svc.wrap(
            [os.path.join(self.svc.pg_bin, "pg_recvlogical"), "-d", self.svc.admin, "--slot",
             self.slot(shape), "--start", "-o", "proto_version=1", "-o",
             f"publication_names={BENCH_PUBLICATION}", "-f", "/dev/null", "-F", "1",
             "--no-loop"]))
        time.sleep(1)
        return self.proc.pid

    def stop_steady(self):
        self.proc.send_signal(signal.SIGINT)
        usage, _ = wait_usage(self.proc)
        return usage


class Outboxd:
    name = "outboxd"
    relay = ""  # [relay] section lines

    def __init__(self, svc, binary, workdir, kafka_props=(), postgres_props=()):
        self.svc = svc
        self.postgres_props = list(postgres_props)
        self.binary = binary
        self.workdir = workdir
        self.kafka_props = list(kafka_props)
        self.proc = None

    def slot(self, shape):
        return f"b_outboxd_{shape}"

    def write_config(self, shape, http_port=None):
        path = os.path.join(self.workdir, f"{self.name}-{shape}.toml")
        props = "\n".join(f'"{k}" = "{v}"' for k, v in self.kafka_props)
        pg_props = "".join(f"{k} = {v}\n" for k, v in self.postgres_props)
        http = f'[http]\nlisten = "127.0.0.1:{http_port}"\n' if http_port else ""
        relay = f"[relay]\n{self.relay}\n" if self.relay else ""
        with open(path, "w") as f:
            f.write(f"""[postgres]
conninfo = "{self.svc.conninfo}"
slot = "{self.slot(shape)}"
publication = "{BENCH_PUBLICATION}"
tables = ["public.outbox"]
{pg_props}[kafka]
"bootstrap.servers" = "{self.svc.bootstrap}"
{props}
{relay}{http}""")
        return path

    def start(self, shape, http_port=None):
        config = self.write_config(shape, http_port)
        self.log_path = os.path.join(self.workdir, f"{self.name}-{shape}.log")
        with open(self.log_path, "ab") as log_file:
            self.proc = subprocess.Popen(self.svc.wrap([self.binary, "run", "--config", config]),
                                         stderr=log_file, stdout=log_file)
        return self.proc.pid

    def confirmed(self, shape, end_lsn):
        if self.proc.poll() is not None:
            raise RuntimeError(f"outboxd exited {self.proc.returncode}; see {self.log_path}")
        # Always one row (poll_sql reads exactly one line): false while the slot is missing.
        return self.svc.poll_sql(
            f"SELECT coalesce((SELECT confirmed_flush_lsn >= '{end_lsn}' FROM pg_replication_slots"
            f" WHERE slot_name = '{self.slot(shape)}'), false)") == "t"

    def wait_confirmed(self, shape, end_lsn, timeout_s=1800):
        wait_for(lambda: self.confirmed(shape, end_lsn), timeout_s,
                 f"outboxd to confirm {end_lsn}")

    def startup_s(self, spawned_wall):
        """Seconds from the spawn to the log's "streaming slot" line (server checks, position
        record, producer): the share of a short drain that is start-up, not draining."""
        with open(self.log_path) as f:
            for line in f:
                if " streaming slot " in line:
                    stamp = datetime.datetime.strptime(line.split(" ", 1)[0],
                                                       "%Y-%m-%dT%H:%M:%S.%fZ")
                    return stamp.replace(tzinfo=datetime.timezone.utc).timestamp() - spawned_wall
        return None

    def drain(self, shape, end_lsn):
        start, spawned_wall = time.monotonic(), time.time()
        pid = self.start(shape)
        self.wait_confirmed(shape, end_lsn)
        seconds = time.monotonic() - start
        cpu, hwm, split = proc_cpu_s(pid), proc_hwm_kb(pid), proc_rss_split_kb(pid)
        self.stop()
        startup = self.startup_s(spawned_wall)
        if startup is not None:
            log(f"outboxd {shape}: {startup:.2f}s from spawn to streaming")
        return {"seconds": seconds, "cpu_s": cpu, "peak_rss_kb": hwm, "startup_s": startup,
                **split}

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            log("outboxd did not stop within 30 s of SIGTERM; killing it")
            self.proc.kill()
            self.proc.wait()


class OutboxdExactlyOnce(Outboxd):
    """outboxd with [relay] delivery = "exactly_once", on its own slot (bench/run --exactly-once)."""
    name = "outboxd-exactly-once"
    relay = 'delivery = "exactly_once"'

    def slot(self, shape):
        return f"b_outboxd_eos_{shape}"
