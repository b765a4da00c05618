"""Debezium (Postgres connector + Outbox Event Router on Kafka Connect) as a competitor.

Runs through scripts/debezium. Debezium 3.6 without stored offsets begins at the current WAL
position even from an existing slot (shared/DEBEZIUM.md), so each run primes its own slot
before the load: start, publish one row, clean stop (offsets flushed), and the measured start
resumes from there, draining the backlog behind it. Done when its topic holds every row
(counted with kcat's end offsets). Timed from the worker's start and, separately, from the
moment its task reports RUNNING; CPU and peak RSS are the Connect JVM's own (/proc).
"""

import json
import os
import subprocess
import time

from .competitors import BENCH_PUBLICATION
from .services import SCRIPTS, log, proc_cpu_s, proc_hwm_kb, wait_for

# The settings of the tuned variant (docs/performance.md explains each).
TUNED_CONNECTOR = {"max.batch.size": "16384", "max.queue.size": "65536",
                   "poll.interval.ms": "10"}
TUNED_WORKER = ["producer.linger.ms=5", "producer.batch.size=524288",
                "producer.buffer.memory=134217728"]


def end_offsets(svc, topic):
    """Records in `topic` (sum of its partitions' end offsets), through kcat's metadata."""
    meta = subprocess.run(["kcat", "-b", svc.bootstrap, "-L", "-J", "-t", topic],
                          capture_output=True, text=True, timeout=60)
    parts = [p["partition"] for t in json.loads(meta.stdout or "{}").get("topics", [])
             for p in t.get("partitions", [])]
    if not parts:
        return 0
    args = ["kcat", "-b", svc.bootstrap, "-Q"]
    for p in parts:
        args += ["-t", f"{topic}:{p}:-1"]
    out = subprocess.run(args, capture_output=True, text=True, timeout=60).stdout
    # Lines: "<topic> [<partition>] offset <n>".
    return sum(int(line.rsplit(" ", 1)[1]) for line in out.splitlines() if " offset " in line)


class Debezium:
    def __init__(self, svc, workdir, tuned=False):
        self.svc = svc
        self.workdir = workdir
        self.tuned = tuned
        self.name = "debezium-tuned" if tuned else "debezium"
        self.prefix = "dbzt" if tuned else "dbz"

    def slot(self, shape):
        return f"b_{self.prefix}_{shape}"

    def topic_of(self, run):
        """One topic per run: the runs of a shape share the aggregate, not the WAL start."""
        return f"{self.prefix}_{run}.outbox.event.{self.aggregate}"

    def connector_file(self, run):
        config = {
            "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
            "database.hostname": "127.0.0.1", "database.port": self.svc.env[
                "OUTBOXD_TEST_PG_PORT"],
            "database.user": "outboxd", "database.password": "outboxd", "database.dbname": "app",
            "topic.prefix": f"{self.prefix}_{run}", "plugin.name": "pgoutput",
            "slot.name": self.slot(run), "publication.name": BENCH_PUBLICATION,
            "publication.autocreate.mode": "disabled", "table.include.list": "public.outbox",
            "snapshot.mode": "no_data", "tombstones.on.delete": "false",
            "transforms": "outbox",
            "transforms.outbox.type": "io.debezium.transforms.outbox.EventRouter",
            "transforms.outbox.route.topic.replacement":
                f"{self.prefix}_{run}.outbox.event.${{routedByValue}}",
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
            "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        }
        if self.tuned:
            config.update(TUNED_CONNECTOR)
        path = os.path.join(self.workdir, f"{self.prefix}-{run}.json")
        with open(path, "w") as f:
            json.dump({"name": f"{self.prefix}-{run}", "config": config}, f)
        return path

    def script(self, *args, check=True):
        env = dict(os.environ)
        if self.tuned:
            env["OUTBOXD_DEBEZIUM_WORKER_PROPS"] = "\n".join(TUNED_WORKER)
        cmd = [os.path.join(SCRIPTS, "debezium"), *args]
        if args[0] == "start":
            cmd = self.svc.wrap(cmd)  # The JVM inherits the mask.
        return subprocess.run(cmd, check=check, env=env, capture_output=True, text=True)

    def pid(self):
        with open(os.path.join(self.svc.dir, "debezium", "pid")) as f:
            return int(f.read().strip())

    def start(self, run):
        """Starts the worker; returns (start time, time its task reported RUNNING)."""
        start = time.monotonic()
        try:
            self.script("start", self.svc.dir, self.connector_file(run))
            self.script("wait-running", self.svc.dir, "300")
        except subprocess.CalledProcessError as e:
            raise RuntimeError(f"{self.name}: {e.stderr[-2000:]}") from e
        return start, time.monotonic()

    def stop(self):
        self.script("stop", self.svc.dir, check=False)

    def rows(self):
        return int(self.svc.sql("SELECT count(*) FROM public.outbox "
                                f"WHERE aggregatetype = '{self.aggregate}'"))

    def prime(self, run, aggregate, partitions):
        """Before the load: one row through a first start, so the next start resumes from the
        slot instead of from the WAL's end. The row is this shape's, so every competitor
        publishes it; rows committed before it are never this run's (`before`)."""
        self.aggregate = aggregate
        offsets = os.path.join(self.svc.dir, "debezium", "offsets.dat")
        if os.path.exists(offsets):
            os.remove(offsets)
        topic = self.topic_of(run)
        self.svc.create_topic(topic, partitions)
        self.start(run)
        self.before = getattr(self, "before", {})
        self.before[run] = self.rows()
        self.svc.sql("INSERT INTO public.outbox (aggregatetype, aggregateid, type, payload) "
                     f"VALUES ('{aggregate}', 'warm-up', 'T', '{{\"us\": 0}}')")
        wait_for(lambda: end_offsets(self.svc, topic) > 0, 120,
                 f"{self.name} to publish its priming row", poll_s=0.5)
        self.stop()

    def target(self, run):
        """Records its topic holds once it has published every row committed since priming."""
        return self.rows() - self.before[run]

    def start_measured(self, run):
        self.t_start, self.t_running = self.start(run)
        self.jvm = self.pid()
        return self.jvm

    def finish_measured(self, run, timeout_s=3600):
        topic, target = self.topic_of(run), self.target(run)
        wait_for(lambda: end_offsets(self.svc, topic) >= target, timeout_s,
                 f"{self.name} to publish {target} records to {topic}", poll_s=0.25)
        end = time.monotonic()
        cpu, hwm = proc_cpu_s(self.jvm), proc_hwm_kb(self.jvm)
        self.stop()
        log(f"{self.name}: start-up to RUNNING {self.t_running - self.t_start:.1f}s")
        return {"seconds": end - self.t_start, "seconds_from_running": end - self.t_running,
                "startup_s": self.t_running - self.t_start, "cpu_s": cpu, "peak_rss_kb": hwm,
                "records": target}

    def drain(self, run, end_lsn):
        self.start_measured(run)
        return self.finish_measured(run)
