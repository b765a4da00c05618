"""Steady-rate shapes (latency, CPU per event) and kill -9 under load (duplicates per kill)."""

import threading
import time

from .competitors import Outboxd
from .debezium import Debezium
from .naive import NaiveRelay
from .services import load_average, log, proc_cpu_s, proc_hwm_kb, proc_rss_split_kb
from .shapes import (Steady, aggregate, pgbench, percentiles, read_latencies, reset_schema,
                     topic)


def current_lsn(svc):
    return svc.sql("SELECT pg_current_wal_lsn()")


def slot_run(shape):
    """Steady shapes run once: the slot and run name reset_schema made for repeat 0."""
    return f"{shape.name}_r0"


def warm_up(svc, outboxd, shape):
    """The first record waits for the producer's idempotence PID and the topic's metadata:
    start-up, not steady state. Its payload carries no timestamp, so latency skips it."""
    svc.sql("INSERT INTO public.outbox (aggregatetype, aggregateid, type, payload) "
            f"VALUES ('{aggregate(shape)}', 'warm-up', 'T', '{{\"us\": 0}}')")
    outboxd.wait_confirmed(slot_run(shape), current_lsn(svc), timeout_s=60)


def steady_outboxd(svc, workdir, outboxd, shape):
    pid = outboxd.start(slot_run(shape))
    warm_up(svc, outboxd, shape)
    load, cpu0 = load_average(), proc_cpu_s(pid)
    start = time.monotonic()
    events = pgbench(svc, workdir, shape)
    outboxd.wait_confirmed(slot_run(shape), current_lsn(svc), timeout_s=300)
    catch_up = time.monotonic() - start - shape.seconds
    cpu = proc_cpu_s(pid) - cpu0
    hwm, split = proc_hwm_kb(pid), proc_rss_split_kb(pid)
    outboxd.stop()
    lat = read_latencies(svc, topic(shape), events)
    r = {"events": events, "events_per_s": events / shape.seconds, "cpu_s": cpu,
         "cpu_us_per_event": cpu * 1e6 / max(events, 1), "peak_rss_kb": hwm,
         "catch_up_s": max(catch_up, 0.0), "load_avg_1m": load, **split, **percentiles(lat)}
    return r, lat


def steady_debezium(svc, workdir, dbz, shape):
    run = slot_run(shape)
    dbz.prime(run, aggregate(shape), shape.partitions)
    pid = dbz.start_measured(run)
    load, cpu0 = load_average(), proc_cpu_s(pid)
    events = pgbench(svc, workdir, shape)
    r = dbz.finish_measured(run, timeout_s=600)
    lat = read_latencies(svc, dbz.topic_of(run), events)
    cpu = r["cpu_s"] - cpu0
    r.update({"events": events, "events_per_s": events / shape.seconds, "cpu_s": cpu,
              "cpu_us_per_event": cpu * 1e6 / max(events, 1),
              "catch_up_s": max(r["seconds_from_running"] - shape.seconds, 0.0),
              "load_avg_1m": load, **percentiles(lat)})
    return r, lat


def steady_naive(svc, workdir, naive, shape):
    pid = naive.start(slot_run(shape), aggregate(shape), shape.partitions)
    svc.sql("INSERT INTO public.outbox (aggregatetype, aggregateid, type, payload) "
            f"VALUES ('{aggregate(shape)}', 'warm-up', 'T', '{{\"us\": 0}}')")
    naive.wait_records(aggregate(shape), 1, 60)
    load, cpu0 = load_average(), proc_cpu_s(pid)
    start = time.monotonic()
    events = pgbench(svc, workdir, shape)
    naive.wait_records(aggregate(shape), events + 1, 300)
    catch_up = time.monotonic() - start - shape.seconds
    cpu, hwm, _ = naive.stop()
    cpu -= cpu0
    lat = read_latencies(svc, naive.topic(aggregate(shape)), events)
    r = {"events": events, "events_per_s": events / shape.seconds, "cpu_s": cpu,
         "cpu_us_per_event": cpu * 1e6 / max(events, 1), "peak_rss_kb": hwm,
         "catch_up_s": max(catch_up, 0.0), "load_avg_1m": load, **percentiles(lat)}
    return r, lat


def steady_recvlogical(svc, workdir, recv, shape):
    pid = recv.start_steady(slot_run(shape))
    load, cpu0 = load_average(), proc_cpu_s(pid)
    events = pgbench(svc, workdir, shape)
    time.sleep(1)  # Its -F 1 flush cadence; nothing more to wait for.
    cpu = proc_cpu_s(pid) - cpu0
    usage = recv.stop_steady()
    return {"events": events, "events_per_s": events / shape.seconds, "cpu_s": cpu,
            "cpu_us_per_event": cpu * 1e6 / max(events, 1), "peak_rss_kb": usage.peak_rss_kb,
            "load_avg_1m": load}


def run_steady(svc, workdir, competitors, shape):
    # Each competitor's slot is created just before its own load: a slot made before the
    # other's load would first drain that as a backlog.
    reset_schema(svc, [], shape)
    results = {}
    for c in competitors:
        svc.sql(f"SELECT pg_create_logical_replication_slot('{c.slot(slot_run(shape))}', "
                "'pgoutput')")
        if isinstance(c, (Outboxd, Debezium, NaiveRelay)):
            run = {Outboxd: steady_outboxd, Debezium: steady_debezium,
                   NaiveRelay: steady_naive}[type(c)]
            r, lat = run(svc, workdir, c, shape)
            r["latency_ms_sorted_sample"] = sorted(lat)[:: max(1, len(lat) // 2000)]
        else:
            r = steady_recvlogical(svc, workdir, c, shape)
        log(f"{shape.name} {c.name}: {r['events']} events, cpu {r['cpu_us_per_event']:.1f} "
            f"us/event, p50 {r.get('p50_ms', float('nan')):.1f} "
            f"p99 {r.get('p99_ms', float('nan')):.1f} ms, load {r['load_avg_1m']:.1f}")
        results[c.name] = r
        svc.sql(f"SELECT pg_drop_replication_slot('{c.slot(slot_run(shape))}')")
    return results


def run_kills(svc, workdir, outboxd, quick):
    """kill -9 under a steady 5k/s, restart at once; count what Kafka received twice."""
    shape = Steady("kill", 5000, 12 if quick else 30)
    kills = 3 if quick else 6
    reset_schema(svc, [outboxd], shape)
    outboxd.start(slot_run(shape))
    warm_up(svc, outboxd, shape)
    load = load_average()
    done = {}
    loader = threading.Thread(target=lambda: done.update(n=pgbench(svc, workdir, shape)))
    loader.start()
    interval = shape.seconds / (kills + 1)
    for _ in range(kills):
        time.sleep(interval)
        outboxd.kill9()
        outboxd.start(slot_run(shape))
    loader.join()
    outboxd.wait_confirmed(slot_run(shape), current_lsn(svc), timeout_s=300)
    outboxd.stop()
    rows = int(svc.sql("SELECT count(*) FROM public.outbox "
                       f"WHERE aggregatetype = '{aggregate(shape)}'"))
    records = svc.topic_offsets(topic(shape))
    dup = records - rows
    r = {"rate": shape.rate, "seconds": shape.seconds, "kills": kills, "rows": rows,
         "records": records, "duplicates": dup, "duplicates_per_kill": dup / kills,
         "replayed_seconds_per_kill": dup / kills / shape.rate, "load_avg_1m": load}
    log(f"kill: {kills} kills at {shape.rate}/s: {dup} duplicates ({dup / kills:.0f} per kill, "
        f"{r['replayed_seconds_per_kill']:.2f} s of traffic), load {load:.1f}")
    if records < rows:
        raise RuntimeError(f"kill shape lost records: {records} in Kafka for {rows} rows")
    return r

