"""results.json → results.md (tables with ratios) and PNG charts (matplotlib)."""

import os


def fmt(v, digits=0):
    if v is None:
        return "–"
    return f"{v:,.{digits}f}"


def ratio(a, b):
    return f"{a / b:.2f}×" if a and b else "–"


def drain_table(drain):
    lines = [
        "| shape | rows | payload | tx rows | partitions | pg_recvlogical ev/s | outboxd ev/s "
        "| outboxd MB/s | **outboxd / pg_recvlogical** | CPU s / M events (recv / outboxd) "
        "| peak RSS MB (recv / outboxd) | load avg |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, shape in drain.items():
        r, o = shape["results"]["pg_recvlogical"], shape["results"]["outboxd"]
        lines.append(
            f"| {name} | {fmt(shape['rows'])} | {shape['payload']} B | {fmt(shape['tx_rows'])} "
            f"| {shape['partitions']} | {fmt(r['events_per_s'])} | {fmt(o['events_per_s'])} "
            f"| {fmt(o['mb_per_s'], 1)} | **{ratio(o['events_per_s'], r['events_per_s'])}** "
            f"| {fmt(r['cpu_s_per_million'], 1)} / {fmt(o['cpu_s_per_million'], 1)} "
            f"| {fmt(r['peak_rss_kb'] / 1024, 0)} / {fmt(o['peak_rss_kb'] / 1024, 0)} "
            f"| {o['load_avg_1m']:.1f} |")
    return lines


def steady_table(steady):
    lines = [
        "| shape | events/s reached | outboxd p50 / p99 / p99.9 / max ms (commit→append) "
        "| catch-up after load s | CPU µs/event (recv / outboxd) | outboxd peak RSS MB "
        "| load avg |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, shape in steady.items():
        o, r = shape["results"]["outboxd"], shape["results"]["pg_recvlogical"]
        lines.append(
            f"| {name} ({shape['rate']}/s target) | {fmt(o['events_per_s'])} "
            f"| {fmt(o.get('p50_ms'), 1)} / {fmt(o.get('p99_ms'), 1)} / "
            f"{fmt(o.get('p999_ms'), 1)} / {fmt(o.get('max_ms'), 1)} "
            f"| {fmt(o['catch_up_s'], 2)} | {fmt(r['cpu_us_per_event'], 1)} / "
            f"{fmt(o['cpu_us_per_event'], 1)} | {fmt(o['peak_rss_kb'] / 1024, 0)} "
            f"| {o['load_avg_1m']:.1f} |")
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
          f"{results['repeats']} run(s) per drain; load average (1 min) at each figure's "
          f"start in the last column.", ""]
    if results["kafka_overrides"]:
        md += [f"outboxd [kafka] overrides: {', '.join(results['kafka_overrides'])}", ""]
    if results["drain"]:
        md += ["## Backlog drain", ""] + drain_table(results["drain"]) + [""]
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
        width = 0.4
        for i, comp in enumerate(["pg_recvlogical", "outboxd"]):
            vals = [results["drain"][n]["results"][comp]["events_per_s"] for n in names]
            ax.bar([x + i * width for x in range(len(names))], vals, width, label=comp)
        ax.set_xticks([x + width / 2 for x in range(len(names))], names, rotation=20,
                      ha="right")
        ax.set_ylabel("events/s (backlog drain)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, "drain_throughput.png"), dpi=110)
        plt.close(fig)
    if results["steady"]:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for name, shape in results["steady"].items():
            lat = shape["results"]["outboxd"].get("latency_ms_sorted_sample", [])
            if lat:
                ax.plot(lat, [i / len(lat) for i in range(len(lat))], label=name)
        ax.set_xscale("log")
        ax.set_xlabel("commit → broker append (ms)")
        ax.set_ylabel("fraction of records")
        ax.set_title("outboxd latency CDF")
        ax.legend()
        ax.grid(True, which="both", alpha=0.3)
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, "latency_cdf.png"), dpi=110)
        plt.close(fig)
