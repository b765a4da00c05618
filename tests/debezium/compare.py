#!/usr/bin/env python3
"""compare.py DEBEZIUM_DIR OUTBOXD_DIR DBZ_PREFIX OBX_PREFIX [--registry URL DBZ_LOG OBX_LOG]
— compare two record dumps.

Each DIR holds <topic>.jsonl files written by dump_records. For every topic, the records of
each partition must match in order (so per-key order matches too): key bytes, value bytes and
headers (names, order, bytes). Two headers differ by design and are checked for shape instead:
__debezium.context.runId (a UUID, the same for every record of one side) and
__debezium.context.connectorLogicalName (each side's topic.prefix). Timestamps are processing
times and are not compared. One difference is intentional (docs/migrating-from-debezium.md)
and counted apart: under StringConverter Debezium writes a bytea payload as the text
java.nio.HeapByteBuffer[pos=0 lim=N cap=N], outboxd the N raw bytes. Prints a summary; exit 1
on any other difference.

With --registry (the avro set-ups: Confluent's AvroConverter on key and value), keys and
values are Confluent's wire format and both sides registered in that one registry, as when
outboxd takes over from Debezium: the schema ids, so the bytes (and the partitions, which follow
the key bytes), must be the same. Each side's framing (magic 0, 4-byte id, nothing left after
the datum), the subject of its id (TopicNameStrategy: <topic>-key, <topic>-value), the schema
and the datum decoded with fastavro are compared, then the bytes; and per subject the schema
texts each side sent (DBZ_LOG, OBX_LOG: registry_tap.py's), which the registry may have
answered with the id of one it deems the same.
"""
import base64
import io
import json
import os
import re
import struct
import sys
import urllib.request
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


class Registry:
    """Schemas by id from a Confluent-compatible registry, parsed by fastavro."""

    def __init__(self, url, fastavro):
        self.url, self.fastavro, self.schemas, self.subjects = url, fastavro, {}, {}

    def get(self, path):
        with urllib.request.urlopen(self.url + path, timeout=10) as r:
            return json.loads(r.read())

    def schema(self, schema_id):
        if schema_id not in self.schemas:
            text = self.get(f"/schemas/ids/{schema_id}")["schema"]
            self.schemas[schema_id] = (text, self.fastavro.parse_schema(json.loads(text)))
            self.subjects[schema_id] = {v["subject"] for v in
                                        self.get(f"/schemas/ids/{schema_id}/versions")}
        return self.schemas[schema_id]

    def decode(self, b64, subject):
        """(id, schema JSON, datum) of a framed record, or raises ValueError."""
        framed = base64.b64decode(b64)
        if len(framed) < 5 or framed[0] != 0:
            raise ValueError(f"not Confluent's framing: {framed[:8].hex()}")
        schema_id = struct.unpack(">I", framed[1:5])[0]
        text, parsed = self.schema(schema_id)
        if subject not in self.subjects[schema_id]:
            raise ValueError(f"schema id {schema_id} is registered under "
                             f"{sorted(self.subjects[schema_id])}, not {subject}")
        body = io.BytesIO(framed[5:])
        datum = self.fastavro.schemaless_reader(body, parsed)
        if body.read():
            raise ValueError(f"bytes left after the datum of schema id {schema_id}")
        return schema_id, json.loads(text), datum


class AvroCompare:
    """Keys and values in Confluent's wire format, both sides registered in one registry."""

    def __init__(self, url):
        import fastavro  # only the avro set-ups need it
        self.registry = Registry(url, fastavro)
        self.decoded = 0

    def compare(self, a, b, subject, field, problems, where):
        if a is None or b is None:
            if a != b:
                problems.append(f"{where}: {field} null on one side: debezium {show(a)} "
                                f"outboxd {show(b)}")
            return
        try:
            ida, schema_a, datum_a = self.registry.decode(a, subject)
        except ValueError as e:
            problems.append(f"{where}: {field}: debezium: {e}")
            return
        try:
            idb, schema_b, datum_b = self.registry.decode(b, subject)
        except ValueError as e:
            problems.append(f"{where}: {field}: outboxd: {e}")
            return
        self.decoded += 1
        if ida != idb or schema_a != schema_b:
            problems.append(f"{where}: {field} schema differs: debezium (id {ida}) "
                            f"{json.dumps(schema_a)} outboxd (id {idb}) {json.dumps(schema_b)}")
        if datum_a != datum_b:
            problems.append(f"{where}: {field} differs: debezium {datum_a!r} outboxd {datum_b!r}")
        elif ida == idb and a != b:
            problems.append(f"{where}: {field}: the same datum in other bytes: debezium "
                            f"{base64.b64decode(a).hex()} outboxd {base64.b64decode(b).hex()}")

    def compare_registered(self, logs, topics, problems):
        """Per subject of the topics, the schema texts each side registered (registry_tap.py's
        logs), distinct, in order: the registry may have taken one for a schema it holds."""
        sent = []
        for path in logs:
            by_subject = defaultdict(list)
            with open(path, encoding="utf-8") as f:
                for line in f:
                    r = json.loads(line)
                    if r["schema"] not in by_subject[r["subject"]]:
                        by_subject[r["subject"]].append(r["schema"])
            sent.append(by_subject)
        self.subjects = 0
        for subject in sorted(f"{t}-{field}" for t in topics for field in ("key", "value")):
            a, b = sent[0].get(subject, []), sent[1].get(subject, [])
            self.subjects += bool(a or b)
            if a != b:
                problems.append(f"subject {subject}: debezium registered {json.dumps(a)}, "
                                f"outboxd {json.dumps(b)}")

    def summary(self):
        return (f"avro: {self.decoded} keys and values decoded on both sides, "
                f"{len(self.registry.schemas)} schema ids; the schema texts each side "
                f"registered under {self.subjects} subjects compared")


def compare_record(a, b, sides, problems, where, avro=None, topic=None):
    for field in ("key", "value"):
        if avro is not None:
            avro.compare(a[field], b[field], f"{topic}-{field}", field, problems, where)
            continue
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
    avro = None
    if len(sys.argv) == 9 and sys.argv[5] == "--registry":
        avro = AvroCompare(sys.argv[6])
    elif len(sys.argv) != 5:
        sys.exit(__doc__)
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
                compare_record(ra, rb, sides, problems, f"{topic}/{p}#{i}", avro, topic)
                records += 1
                same += len(problems) == before
    if avro is not None:
        avro.compare_registered(sys.argv[7:9], sorted(set(dbz) | set(obx)), problems)
    for side in sides:
        if len(side.run_ids) > 1:
            problems.append(f"{side.name}: {len(side.run_ids)} different runIds in one run")
    print(f"  {len(set(dbz) | set(obx))} topics, {records} record pairs compared, "
          f"{same - len(INTENTIONAL)} identical, {len(INTENTIONAL)} intentionally different "
          f"(bytea under StringConverter), {len(problems)} differences")
    if avro is not None:
        print("  " + avro.summary())
    for line in problems[:40]:
        print("  DIFF " + line)
    if len(problems) > 40:
        print(f"  ... {len(problems) - 40} more")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
