"""Workload shapes: a backlog built behind every competitor's slot, or a steady pgbench rate."""

import os
import subprocess
import time
from dataclasses import dataclass

from .competitors import BENCH_PUBLICATION
from .services import load_average, log, machine_busy_cpu_s

# Tells this run's topics from those of an earlier run against the same broker (--services).
RUN_ID = f"{int(time.time()) % 1_000_000:06d}"


def aggregate(shape):
    """The shape's aggregatetype in this run; its topic is outbox.event.<aggregate>."""
    return f"{shape.name}_{RUN_ID}"


def topic(shape):
    return f"outbox.event.{aggregate(shape)}"


@dataclass
class Drain:
    name: str
    rows: int
    payload: int  # Bytes of padding in the jsonb payload.
    tx_rows: int  # Rows per transaction.
    partitions: int

    kind = "drain"


@dataclass
class Steady:
    name: str
    rate: int  # Events/s, one row per transaction (pgbench -R).
    seconds: int
    partitions: int = 6

    kind = "steady"


SCHEMA = f"""
DROP PUBLICATION IF EXISTS {BENCH_PUBLICATION};
DROP TABLE IF EXISTS public.outbox;
CREATE TABLE public.outbox (id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  aggregatetype text NOT NULL, aggregateid text NOT NULL, type text NOT NULL, payload jsonb);
-- Out of line and uncompressed above ~2 kB, so the 8 KB shape really reads TOAST.
ALTER TABLE public.outbox ALTER COLUMN payload SET STORAGE EXTERNAL;
ALTER TABLE public.outbox OWNER TO outboxd;
CREATE PUBLICATION {BENCH_PUBLICATION} FOR TABLE public.outbox WITH (publish = 'insert');
CREATE OR REPLACE PROCEDURE bench_load(agg text, n int, tx int, pad int) LANGUAGE plpgsql AS $$
DECLARE i int := 0;
BEGIN
  WHILE i < n LOOP
    INSERT INTO public.outbox (aggregatetype, aggregateid, type, payload)
      SELECT agg, 'agg-' || (g % 1000), 'T', jsonb_build_object('i', g, 'pad', repeat('x', pad))
      FROM generate_series(i + 1, least(i + tx, n)) g;
    COMMIT;
    i := i + tx;
  END LOOP;
END $$;
"""


def run_names(shape, repeats):
    """One slot (and run) name per repeat: every run drains the same WAL from its own slot."""
    return [f"{shape.name}_r{r}" for r in range(repeats)]


def reset_schema(svc, competitors, shape, repeats=1):
    """Fresh table and publication, then every competitor's slots, all before any load."""
    svc.sql("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
            "WHERE slot_name LIKE 'b\\_%' AND NOT active")
    svc.sql(SCHEMA)
    for run in run_names(shape, repeats):
        for c in competitors:
            svc.sql(f"SELECT pg_create_logical_replication_slot('{c.slot(run)}', 'pgoutput')")
    svc.create_topic(topic(shape), shape.partitions)


def drop_slots(svc, competitors, shape, repeats=1):
    for run in run_names(shape, repeats):
        for c in competitors:
            svc.sql(f"SELECT pg_drop_replication_slot('{c.slot(run)}')")


def build_backlog(svc, shape):
    start = time.monotonic()
    svc.sql(f"CALL bench_load('{aggregate(shape)}', {shape.rows}, {shape.tx_rows}, {shape.payload})")
    end_lsn = svc.sql("SELECT pg_current_wal_lsn()")
    wal_bytes = int(svc.sql(f"SELECT pg_wal_lsn_diff('{end_lsn}', '0/0')"))
    log(f"{shape.name}: backlog of {shape.rows} rows in {time.monotonic() - start:.1f}s")
    return end_lsn, wal_bytes


def runs_of(competitor, shape, repeats):
    """The runs `competitor` drains: every repeat, or the first `max_repeats` of them (a slow
    competitor in a long matrix)."""
    names = run_names(shape, repeats)
    limit = getattr(competitor, "max_repeats", None)
    return names if limit is None else names[:limit]


def run_drain(svc, competitors, shape, repeats):
    reset_schema(svc, competitors, shape, repeats)
    for c in competitors:
        for run in runs_of(c, shape, repeats):
            if hasattr(c, "prime"):
                c.prime(run, aggregate(shape), shape.partitions)
    end_lsn, _ = build_backlog(svc, shape)
    row_bytes = int(svc.sql("SELECT coalesce(avg(pg_column_size(payload)), 0)::int + 60 "
                            "FROM (SELECT payload FROM public.outbox LIMIT 1000) s"))
    runs = {c.name: [] for c in competitors}
    # Interleaved, so a burst of load from other work on the machine hits both alike.
    for run in run_names(shape, repeats):
        for c in competitors:
            if run not in runs_of(c, shape, repeats):
                continue
            load = load_average()
            # The whole machine's CPU and the broker's share: on 2 cores a drain into a
            # broker on the same machine is bounded by what the broker itself burns.
            busy0, broker0, t0 = machine_busy_cpu_s(), svc.broker_cpu_s(), time.monotonic()
            r = c.drain(run, end_lsn)
            wall = time.monotonic() - t0
            busy = machine_busy_cpu_s() - busy0
            r["machine_busy_pct"] = busy * 100 / (os.cpu_count() * wall)
            r["machine_cpu_s_per_million"] = busy * 1e6 / shape.rows
            r["broker_cpu_s_per_million"] = (svc.broker_cpu_s() - broker0) * 1e6 / shape.rows
            r["load_avg_1m"] = load
            r["events_per_s"] = shape.rows / r["seconds"]
            r["mb_per_s"] = shape.rows * row_bytes / r["seconds"] / 1e6
            r["cpu_s_per_million"] = r["cpu_s"] * 1e6 / shape.rows
            if "seconds_from_running" in r:
                r["events_per_s_from_running"] = shape.rows / r["seconds_from_running"]
            log(f"{run} {c.name}: {r['seconds']:.2f}s {r['events_per_s']:.0f} ev/s "
                f"cpu {r['cpu_s']:.2f}s rss {r['peak_rss_kb']} kB load {load:.1f}; machine "
                f"{r['machine_busy_pct']:.0f}% busy, broker {r['broker_cpu_s_per_million']:.1f} "
                f"CPU-s/M")
            runs[c.name].append(r)
    results = {}
    for name, rs in runs.items():
        # The median run by rate; every run is kept for the JSON.
        median = sorted(rs, key=lambda x: x["events_per_s"])[len(rs) // 2]
        results[name] = dict(median, runs=rs)
    drop_slots(svc, competitors, shape, repeats)
    return results


INSERT_SQL = """\\set agg random(1, 1000)
INSERT INTO outbox (aggregatetype, aggregateid, type, payload)
  VALUES (':shape', 'agg-' || :agg, 'T',
          jsonb_build_object('us', (extract(epoch FROM clock_timestamp()) * 1000000)::bigint));
"""


def pgbench(svc, workdir, shape):
    script = os.path.join(workdir, "insert.sql")
    with open(script, "w") as f:
        f.write(INSERT_SQL)
    out = subprocess.run(svc.wrap(
        [os.path.join(svc.pg_bin, "pgbench"), svc.conninfo, "-n", "-c", "4", "-j", "2", "-R",
         str(shape.rate), "-T", str(shape.seconds), "-D", f"shape={aggregate(shape)}", "-f",
         script]),
        capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"pgbench failed: {out.stderr[-2000:]}")
    out = out.stdout
    return int(next(line.split()[-1] for line in out.splitlines()
                    if line.startswith("number of transactions actually processed")
                    ).split("/")[0])


def read_latencies(svc, topic, count):
    """commit→append ms per record: LogAppendTime minus the row's clock_timestamp()."""
    out = subprocess.run(
        ["kcat", "-b", svc.bootstrap, "-C", "-q", "-t", topic, "-o", "beginning", "-e", "-f",
         "%T %s\n"], check=True, capture_output=True, text=True, timeout=300).stdout
    lat = []
    for line in out.splitlines():
        ts, _, payload = line.partition(" ")
        digits = "".join(ch for ch in payload if ch.isdigit())
        if digits and digits != "0":
            lat.append(int(ts) - int(digits) / 1000)
    return lat[-count:] if count else lat


def percentiles(values):
    v = sorted(values)
    if not v:
        return {}
    pick = lambda q: v[min(len(v) - 1, int(len(v) * q))]  # noqa: E731
    return {"p50_ms": pick(0.5), "p99_ms": pick(0.99), "p999_ms": pick(0.999), "max_ms": v[-1]}
