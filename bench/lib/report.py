"""results.json → results.md (tables with ratios) and PNG charts (matplotlib)."""

import os


def fmt(v, digits=0):
    if v is None:
        return "–"
    return f"{v:,.{digits}f}"


def ratio(a, b):
    return f"{a / b:.2f}×" if a and b else "–"


DBZ = ("debezium", "debezium-tuned")


def drain_table(drain):
    dbz = [d for d in DBZ if any(d in shape["results"] for shape in drain.values())]
    head = ("| shape | rows | payload | tx rows | partitions | pg_recvlogical ev/s | outboxd ev/s "
            "| outboxd MB/s | **outboxd / pg_recvlogical** ")
    for d in dbz:
        head += f"| {d} ev/s (from start / from RUNNING) | outboxd / {d} (start / RUNNING) "
    names = " / ".join(["recv", "outboxd", *dbz])
    head += f"| CPU s / M events ({names}) | peak RSS MB ({names}) | load avg |"
    lines = [head, "|---|" + "---:|" * (10 + 2 * len(dbz))]
    for name, shape in drain.items():
        res = shape["results"]
        r, o = res["pg_recvlogical"], res["outboxd"]
        row = (f"| {name} | {fmt(shape['rows'])} | {shape['payload']} B "
               f"| {fmt(shape['tx_rows'])} | {shape['partitions']} | {fmt(r['events_per_s'])} "
               f"| {fmt(o['events_per_s'])} | {fmt(o['mb_per_s'], 1)} "
               f"| **{ratio(o['events_per_s'], r['events_per_s'])}** ")
        for d in dbz:
            x = res.get(d, {})
            row += (f"| {fmt(x.get('events_per_s'))} / {fmt(x.get('events_per_s_from_running'))} "
                    f"| {ratio(o['events_per_s'], x.get('events_per_s'))} / "
                    f"{ratio(o['events_per_s'], x.get('events_per_s_from_running'))} ")
        comps = [r, o, *(res.get(d, {}) for d in dbz)]
        row += ("| " + " / ".join(fmt(c.get("cpu_s_per_million"), 1) for c in comps) + " | "
                + " / ".join(fmt(c["peak_rss_kb"] / 1024 if c else None, 0) for c in comps)
                + f" | {o['load_avg_1m']:.1f} |")
        lines.append(row)
    return lines


def paired_ratios(base_runs, runs):
    """b/a of the runs of one repeat, which ran back to back: a burst of other work on a shared
    machine skews a median of each side more than it skews a ratio of neighbours."""
    rs = sorted(r["events_per_s"] / b["events_per_s"] for b, r in zip(base_runs, runs))
    if not rs:
        return "–"
    return f"{rs[len(rs) // 2]:.2f}× ({rs[0]:.2f}–{rs[-1]:.2f})"


def exactly_once_table(drain):
    """exactly_once against at_least_once on the same WAL, when bench/run --exactly-once."""
    eos = "outboxd-exactly-once"
    if not any(eos in shape["results"] for shape in drain.values()):
        return []
    lines = ["| shape | rows | tx rows | at_least_once ev/s | exactly_once ev/s "
             "| **exactly_once / at_least_once** | same repeat: median (min–max) "
             "| CPU s / M events (alo / eos) | peak RSS MB (alo / eos) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, shape in drain.items():
        res = shape["results"]
        if eos not in res:
            continue
        a, e = res["outboxd"], res[eos]
        lines.append(f"| {name} | {fmt(shape['rows'])} | {fmt(shape['tx_rows'])} "
                     f"| {fmt(a['events_per_s'])} | {fmt(e['events_per_s'])} "
                     f"| **{ratio(e['events_per_s'], a['events_per_s'])}** "
                     f"| {paired_ratios(a.get('runs', []), e.get('runs', []))} "
                     f"| {fmt(a.get('cpu_s_per_million'), 1)} / {fmt(e.get('cpu_s_per_million'), 1)} "
                     f"| {fmt(a['peak_rss_kb'] / 1024, 0)} / {fmt(e['peak_rss_kb'] / 1024, 0)} |")
    return lines


def rss_split(r):
    if "rss_anon_kb" not in r:
        return "–"
    return f"{r['rss_anon_kb'] / 1024:.1f} / {r['rss_file_kb'] / 1024:.1f}"


def cpu_table(drain):
    """Where the machine's CPU went in each drain: the competitor, the broker, the rest
    (walsender, Postgres, other work)."""
    comps = ["pg_recvlogical", "outboxd",
             *[d for d in DBZ if any(d in shape["results"] for shape in drain.values())]]
    names = " / ".join(comps)
    lines = [f"| shape | machine busy % ({names}) | machine CPU s / M events ({names}) "
             f"| Kafka broker CPU s / M events ({names}) "
             f"| rest (walsender, Postgres, other) CPU s / M events ({names}) "
             "| outboxd resident MB at the end: own (anonymous) / mapped files (libraries) |",
             "|---|---:|---:|---:|---:|---:|"]
    for name, shape in drain.items():
        res = [shape["results"].get(c, {}) for c in comps]
        if "machine_busy_pct" not in res[1]:
            continue  # results.json from before these figures were taken

        def col(key, digits):
            return " / ".join(fmt(x.get(key), digits) for x in res)
        rest = " / ".join(
            fmt(x["machine_cpu_s_per_million"] - x["broker_cpu_s_per_million"]
                - x["cpu_s_per_million"], 1) if "machine_cpu_s_per_million" in x else "–"
            for x in res)
        lines.append(f"| {name} | {col('machine_busy_pct', 0)} "
                     f"| {col('machine_cpu_s_per_million', 1)} "
                     f"| {col('broker_cpu_s_per_million', 1)} | {rest} "
                     f"| {rss_split(res[1])} |")
    return lines if len(lines) > 2 else []


def steady_table(steady):
    lines = [
        "| shape | competitor | events/s reached | p50 / p99 / p99.9 / max ms (commit→append) "
        "| catch-up after load s | CPU µs/event | peak RSS MB | resident MB at the end: own / "
        "mapped files | load avg |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, shape in steady.items():
        for comp, o in shape["results"].items():
            lat = (f"{fmt(o.get('p50_ms'), 1)} / {fmt(o.get('p99_ms'), 1)} / "
                   f"{fmt(o.get('p999_ms'), 1)} / {fmt(o.get('max_ms'), 1)}"
                   if "p50_ms" in o else "– (no Kafka)")
            lines.append(
                f"| {name} ({shape['rate']}/s target) | {comp} | {fmt(o['events_per_s'])} "
                f"| {lat} | {fmt(o.get('catch_up_s'), 2)} | {fmt(o['cpu_us_per_event'], 1)} "
                f"| {fmt(o['peak_rss_kb'] / 1024, 0)} | {rss_split(o)} | {o['load_avg_1m']:.1f} |")
    gaps = [(name, shape["results"]["outboxd"].get("p99_ms"),
             shape["results"].get("naive-relay", {}).get("p99_ms"))
            for name, shape in steady.items()]
    gaps = [f"{n}: {o - r:+.1f} ms" for n, o, r in gaps if o is not None and r is not None]
    if gaps:
        lines += ["", "outboxd p99 minus the naive relay's p99 in the same run (target ≤ +2 ms): "
                  + "; ".join(gaps) + "."]
    return lines


def kill_lines(kill):
    if not kill:
        return []
    return [
        "| kill -9 under load | kills | rows | records in Kafka | duplicates per kill "
        "| seconds of traffic replayed per kill | load avg |",
        "|---|---:|---:|---:|---:|---:|---:|",
        f"| {kill['rate']}/s for {kill['seconds']} s | {kill['kills']} | {fmt(kill['rows'])} "
        f"| {fmt(kill['records'])} | {fmt(kill['duplicates_per_kill'])} "
        f"| {kill['replayed_seconds_per_kill']:.2f} | {kill['load_avg_1m']:.1f} |",
    ]


def write(results, out_dir):
    v = results["versions"]
    md = [f"# outboxd benchmark matrix ({'quick' if results['quick'] else 'full'} run)", "",
          f"{v['date']}; {v['machine']}; PostgreSQL {v['postgres']}; {v['kafka']}; "
          f"librdkafka {v['librdkafka']}; outboxd {v['outboxd']}; median of "
          f"{results['repeats']} run(s) per drain"
          + (f" ({results['debezium_repeats']} for the Debezium variants)"
             if results.get("debezium_repeats") else "")
          + "; load average (1 min) at each figure's "
          f"start in the last column.", ""]
    if results.get("command"):
        md += [f"Command: `{results['command']}`", ""]
    if results.get("pin_broker"):
        md += ["Broker pinned: Kafka on CPU 0; Postgres, pgbench and the competitor on CPU 1 "
               "(taskset).", ""]
    if results["kafka_overrides"]:
        md += [f"outboxd [kafka] overrides: {', '.join(results['kafka_overrides'])}", ""]
    if results["drain"]:
        md += ["## Backlog drain", ""] + drain_table(results["drain"]) + [""]
        eos = exactly_once_table(results["drain"])
        if eos:
            md += ["### exactly_once against at_least_once", ""] + eos + [""]
        cpu = cpu_table(results["drain"])
        if cpu:
            md += ["### Where the CPU went (non-idle CPU of the whole machine during each "
                   "competitor's drain)", ""] + cpu + [""]
    if results["steady"]:
        md += ["## Steady rate (single-row transactions, 6 partitions)", ""]
        md += steady_table(results["steady"]) + [""]
    if results["kill"]:
        md += ["## Duplicates after kill -9", ""] + kill_lines(results["kill"]) + [""]
    with open(os.path.join(out_dir, "results.md"), "w") as f:
        f.write("\n".join(md))
    charts(results, out_dir)


def charts(results, out_dir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if results["drain"]:
        names = list(results["drain"])
        fig, ax = plt.subplots(figsize=(10, 4.5))
        comps = [c for c in ["pg_recvlogical", "outboxd", *DBZ]
                 if all(c in results["drain"][n]["results"] for n in names)]
        width = 0.8 / len(comps)
        for i, comp in enumerate(comps):
            vals = [results["drain"][n]["results"][comp]["events_per_s"] for n in names]
            ax.bar([x + i * width for x in range(len(names))], vals, width, label=comp)
        ax.set_xticks([x + 0.4 - width / 2 for x in range(len(names))], names, rotation=20,
                      ha="right")
        ax.set_ylabel("events/s (backlog drain)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, "drain_throughput.png"), dpi=110)
        plt.close(fig)
    if results["steady"]:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        # One colour per competitor, one line style per rate: twelve lines stay readable.
        colours, styles = {}, ["-", "--", ":", "-."]
        for rate, (name, shape) in enumerate(results["steady"].items()):
            for comp, r in shape["results"].items():
                lat = r.get("latency_ms_sorted_sample", [])
                if lat:
                    colour = colours.setdefault(comp, f"C{len(colours)}")
                    ax.plot(lat, [i / len(lat) for i in range(len(lat))], color=colour,
                            linestyle=styles[rate % len(styles)], label=f"{name} {comp}")
        ax.set_xscale("log")
        ax.set_xlabel("commit → broker append (ms)")
        ax.set_ylabel("fraction of records")
        ax.set_title("commit → append latency CDF")
        ax.legend()
        ax.grid(True, which="both", alpha=0.3)
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, "latency_cdf.png"), dpi=110)
        plt.close(fig)
