#!/usr/bin/env python3
"""takeover.py DEBEZIUM_DIR AFTER_DIR NEW_ROWS — judge a take-over of Debezium's slot.

DEBEZIUM_DIR: what Debezium published before it was stopped; AFTER_DIR: the same topics after
outboxd ran from Debezium's slot, while NEW_ROWS rows (ids 50000000-...) were written with
Debezium stopped. Records are told apart by (topic, id header, value). Checks: Debezium's
records are still there; every new row arrived exactly once; nothing of Debezium's was lost;
every other record outboxd wrote is a replay (a duplicate) of a row Debezium had already
published, which is what a slot confirmed only up to Debezium's last offset flush gives.
"""
import base64
import json
import os
import sys
from collections import Counter


def identity(r):
    rid = next((v for n, v in r["headers"] if n == "id"), None)
    rid = None if rid is None else base64.b64decode(rid).decode()
    return (r["topic"], rid, r["value"])


def load(directory):
    records = []
    for name in sorted(os.listdir(directory)):
        if name.endswith(".jsonl"):
            with open(os.path.join(directory, name), encoding="utf-8") as f:
                records += [json.loads(line) for line in f]
    return records


def main():
    before, after, new_rows = load(sys.argv[1]), load(sys.argv[2]), int(sys.argv[3])
    seen_before, seen_after = Counter(map(identity, before)), Counter(map(identity, after))
    problems = []
    lost = seen_before - seen_after
    if lost:
        problems.append(f"{sum(lost.values())} of Debezium's records are gone")
    by_outboxd = seen_after - seen_before
    new = {k: n for k, n in by_outboxd.items() if k[1] and k[1].startswith("50000000-")}
    replays = {k: n for k, n in by_outboxd.items() if k not in new}
    if len(new) != new_rows or any(n != 1 for n in new.values()):
        problems.append(f"new rows: {len(new)} distinct of {new_rows}, "
                        f"{sum(new.values()) - len(new)} duplicated")
    unknown = [k for k in replays if k not in seen_before]
    if unknown:
        problems.append(f"{len(unknown)} records outboxd wrote are neither new nor replays")
    print(f"  Debezium published {len(before)} records before its clean stop; outboxd then "
          f"published {sum(by_outboxd.values())}: {sum(new.values())} new rows "
          f"({len(new)} distinct of {new_rows}) and {sum(replays.values())} replays of rows "
          f"Debezium had already published (duplicates), 0 expected lost, "
          f"{sum(lost.values())} lost")
    if replays:
        topics = Counter(k[0] for k in replays)
        print("  replayed per topic: " + ", ".join(f"{t} {n}" for t, n in sorted(topics.items())))
    for p in problems:
        print("  FAIL " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
