#!/usr/bin/env python3
"""Where exactly_once's Kafka transactions spent their time, from outboxd's /metrics text.

Reads the Prometheus text on stdin and prints, for each phase of
outboxd_kafka_transaction_phase_seconds (and the whole close-to-commit of
outboxd_kafka_transaction_commit_seconds): how many transactions, the mean, and the p50/p99
as the upper bound of the bucket they fall in. Exits 1 when the metrics are not there at all
(an outboxd too old, or the wrong port).
"""
import re
import sys

LINE = re.compile(r'^(\w+)(?:\{([^}]*)\})? (\S+)$')


def parse(text):
    series = {}
    for line in text.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        name, labels, value = m.groups()
        labels = dict(re.findall(r'(\w+)="([^"]*)"', labels or ""))
        series.setdefault(name, []).append((labels, float(value)))
    return series


def summary(series, base, match):
    buckets = sorted((float("inf") if l["le"] == "+Inf" else float(l["le"]), v)
                     for l, v in series.get(base + "_bucket", []) if match(l))
    count = next((v for l, v in series.get(base + "_count", []) if match(l)), None)
    total = next((v for l, v in series.get(base + "_sum", []) if match(l)), None)
    if count is None:
        return None
    if count == 0:
        return "0 transactions"

    def quantile(q):
        for bound, cumulative in buckets:
            if cumulative >= q * count:
                return "+Inf" if bound == float("inf") else f"<= {bound * 1000:g} ms"
        return "?"

    return (f"{int(count)} transactions, mean {total / count * 1000:.2f} ms, "
            f"p50 {quantile(0.5)}, p99 {quantile(0.99)}")


def main():
    series = parse(sys.stdin.read())
    rows = [(f"phase {p}", summary(series, "outboxd_kafka_transaction_phase_seconds",
                                   lambda l, p=p: l.get("phase") == p))
            for p in ("first_ack", "last_ack", "commit_call")]
    rows.append(("close -> committed", summary(series, "outboxd_kafka_transaction_commit_seconds",
                                               lambda l: True)))
    if all(r is None for _, r in rows):
        sys.exit("no outboxd_kafka_transaction_* metrics in the input")
    for name, text in rows:
        print(f"kafka transaction {name:<20} {text or 'missing'}")


if __name__ == "__main__":
    main()
