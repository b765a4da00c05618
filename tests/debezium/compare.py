#!/usr/bin/env python3
"""compare.py DEBEZIUM_DIR OUTBOXD_DIR DBZ_PREFIX OBX_PREFIX — compare two record dumps.

Each DIR holds <topic>.jsonl files written by dump_records. For every topic, the records of
each partition must match in order (so per-key order matches too): key bytes, value bytes and
headers (names, order, bytes). Two headers differ by design and are checked for shape instead:
__debezium.context.runId (a UUID, the same for every record of one side) and
__debezium.context.connectorLogicalName (each side's topic.prefix). Timestamps are processing
times and are not compared. One difference is intentional (docs/migrating-from-debezium.md)
and counted apart: under StringConverter Debezium writes a bytea payload as the text
java.nio.HeapByteBuffer[pos=0 lim=N cap=N], outboxd the N raw bytes. Prints a summary; exit 1
on any other difference.
"""
import base64
import json
import os
import re
import sys
from collections import defaultdict

HEAP_BUFFER = re.compile(rb"^java\.nio\.HeapByteBuffer\[pos=0 lim=(\d+) cap=\1\]$")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
RUN_ID = "__debezium.context.runId"
LOGICAL = "__debezium.context.connectorLogicalName"


def load(directory):
    topics = {}
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".jsonl"):
            continue
        parts = defaultdict(list)
        with open(os.path.join(directory, name), encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                parts[r["partition"]].append(r)
        topics[name[: -len(".jsonl")]] = parts
    return topics


def show(b64):
    if b64 is None:
        return "null"
    raw = base64.b64decode(b64)
    text = raw.decode("utf-8", "replace")
    return repr(text if len(text) <= 160 else text[:160] + f"...({len(raw)} bytes)")


class Side:
    def __init__(self, name, prefix):
        self.name, self.prefix, self.run_ids = name, prefix, set()

    def normalise(self, headers, problems, where):
        out = []
        for name, value in headers:
            text = None if value is None else base64.b64decode(value).decode("utf-8", "replace")
            if name == RUN_ID:
                if text is None or not UUID.match(text):
                    problems.append(f"{where}: {self.name} runId {text!r} is not a UUID")
                self.run_ids.add(text)
                value = "<uuid>"
            elif name == LOGICAL:
                if text != self.prefix:
                    problems.append(f"{where}: {self.name} {LOGICAL} {text!r} != {self.prefix!r}")
                value = "<topic.prefix>"
            out.append((name, value))
        return out


def intentional(a, b):
    """Debezium's HeapByteBuffer text for a bytea payload of N bytes, outboxd's N raw bytes."""
    if a["value"] is None or b["value"] is None:
        return False
    m = HEAP_BUFFER.match(base64.b64decode(a["value"]))
    return bool(m) and int(m.group(1)) == len(base64.b64decode(b["value"]))


INTENTIONAL = []


def compare_record(a, b, sides, problems, where):
    for field in ("key", "value"):
        if field == "value" and intentional(a, b):
            INTENTIONAL.append(where)
            continue
        if a[field] != b[field]:
            problems.append(f"{where}: {field} differs: debezium {show(a[field])} "
                            f"outboxd {show(b[field])}")
    ha = sides[0].normalise(a["headers"], problems, where)
    hb = sides[1].normalise(b["headers"], problems, where)
    if ha != hb:
        problems.append(f"{where}: headers differ: debezium "
                        f"{[(n, show(v) if v not in ('<uuid>', '<topic.prefix>') else v) for n, v in ha]} "
                        f"outboxd {[(n, show(v) if v not in ('<uuid>', '<topic.prefix>') else v) for n, v in hb]}")


def main():
    dbz_dir, obx_dir, dbz_prefix, obx_prefix = sys.argv[1:5]
    dbz, obx = load(dbz_dir), load(obx_dir)
    sides = (Side("debezium", dbz_prefix), Side("outboxd", obx_prefix))
    problems, records, same = [], 0, 0
    for topic in sorted(set(dbz) | set(obx)):
        if topic not in dbz or topic not in obx:
            problems.append(f"{topic}: only {'debezium' if topic in dbz else 'outboxd'} wrote it")
            continue
        for p in sorted(set(dbz[topic]) | set(obx[topic])):
            a, b = dbz[topic].get(p, []), obx[topic].get(p, [])
            if len(a) != len(b):
                problems.append(f"{topic}/{p}: debezium {len(a)} records, outboxd {len(b)}")
            for i, (ra, rb) in enumerate(zip(a, b)):
                before = len(problems)
                compare_record(ra, rb, sides, problems, f"{topic}/{p}#{i}")
                records += 1
                same += len(problems) == before
    for side in sides:
        if len(side.run_ids) > 1:
            problems.append(f"{side.name}: {len(side.run_ids)} different runIds in one run")
    print(f"  {len(set(dbz) | set(obx))} topics, {records} record pairs compared, "
          f"{same - len(INTENTIONAL)} identical, {len(INTENTIONAL)} intentionally different "
          f"(bytea under StringConverter), {len(problems)} differences")
    for line in problems[:40]:
        print("  DIFF " + line)
    if len(problems) > 40:
        print(f"  ... {len(problems) - 40} more")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
