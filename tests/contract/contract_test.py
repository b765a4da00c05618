#!/usr/bin/env python3
"""The event contract decoded by implementations outboxd did not write.

For each format outboxd publishes the same rows (a jsonb, a text and a bytea outbox table;
unicode outside the BMP, a large payload, NULL columns, valid and invalid trace context), and
the records, read back from the real broker by dump_records, are decoded by: Python protobuf
with code protoc generated from proto/ (envelope-protobuf), protobuf's json_format.Parse into
the same generated Event (envelope-json), and the CloudEvents SDK's Kafka binding (from_binary
and from_structured). Every field is compared with what was inserted.

Usage: contract_test.py OUTBOXD DUMP_RECORDS GENERATED_PY_DIR WORK_DIR
Needs OUTBOXD_TEST_PG_ADMIN_CONNINFO, OUTBOXD_TEST_PG_CONNINFO, OUTBOXD_TEST_KAFKA_BOOTSTRAP and
OUTBOXD_TEST_PG_BIN (scripts/services writes them).
"""

import base64
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from datetime import datetime, timezone

OUTBOXD, DUMP, GENERATED, WORK = sys.argv[1:5]
sys.path.insert(0, GENERATED)

from google.protobuf import json_format  # noqa: E402
from cloudevents.kafka import KafkaMessage, from_binary, from_structured  # noqa: E402
from outboxd.v1 import event_pb2  # noqa: E402

ADMIN = os.environ["OUTBOXD_TEST_PG_ADMIN_CONNINFO"]
CONNINFO = os.environ["OUTBOXD_TEST_PG_CONNINFO"]
BOOTSTRAP = os.environ["OUTBOXD_TEST_KAFKA_BOOTSTRAP"]
PSQL = os.path.join(os.environ.get("OUTBOXD_TEST_PG_BIN", "/usr/bin"), "psql")
RUN = uuid.uuid4().hex[:8]

TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
TRACESTATE = "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7"
UNICODE = "grüße €, 日本語, emoji 😀 and 𝄞 (outside the BMP)"
LARGE = "x😀" * 140_000  # ~0.7 MB: large, yet under the broker's default 1 MB record limit.
OCCURRED = datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=timezone.utc)

failures = []
checks = [0]


def check(condition, what):
    checks[0] += 1
    if not condition:
        failures.append(what)
        print(f"FAIL {what}", flush=True)


def psql(conninfo, sql):
    out = subprocess.run([PSQL, "-X", "-v", "ON_ERROR_STOP=1", "-qAt", "-d", conninfo],
                         input=sql, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"psql failed: {out.stderr}")
    return out.stdout


def literal(text):
    return "'" + text.replace("'", "''") + "'"


def rows_for(kind):
    """(row dict, SQL value of payload) per test row of a table whose payload is `kind`."""
    if kind == "jsonb":
        full = {"text": UNICODE, "n": 1}
        payloads = [literal(json.dumps(full, ensure_ascii=False)) + "::jsonb",
                    literal(json.dumps({"big": LARGE}, ensure_ascii=False)) + "::jsonb"]
        expected = [json.dumps(full, ensure_ascii=False).encode(),
                    json.dumps({"big": LARGE}, ensure_ascii=False).encode()]
    elif kind == "text":
        payloads = [literal(UNICODE), literal("plain text")]
        expected = [UNICODE.encode(), b"plain text"]
    else:
        raw = bytes(range(256))
        payloads = ["'\\x" + raw.hex() + "'::bytea", "'\\x00ff'::bytea"]
        expected = [raw, b"\x00\xff"]
    rows = [
        dict(id=str(uuid.uuid4()), aggid="order-1", type="OrderCreated", occurred=OCCURRED,
             corr="corr-" + UNICODE, caus="cause-1", tp=TRACEPARENT, ts=TRACESTATE, ct=None,
             payload_sql=payloads[0], payload=expected[0]),
        dict(id=str(uuid.uuid4()), aggid="order-2", type="OrderShipped", occurred=None,
             corr=None, caus=None, tp="not-a-traceparent", ts=TRACESTATE, ct="application/x-test",
             payload_sql=payloads[1], payload=expected[1]),
        dict(id=str(uuid.uuid4()), aggid="order-3", type="OrderNull", occurred=None, corr=None,
             caus=None, tp=None, ts=None, ct=None, payload_sql="NULL", payload=None),
    ]
    return rows


def opt(value):
    if value is None:
        return "NULL"
    if isinstance(value, datetime):
        return literal(value.isoformat())
    return literal(value)


def setup_tables(tag):
    tables = {}
    for kind in ("jsonb", "text", "bytea"):
        name = f"contract_{RUN}_{tag}_{kind}"
        psql(ADMIN, f"""
CREATE TABLE public.{name} (
  id uuid PRIMARY KEY, aggregatetype text NOT NULL, aggregateid text NOT NULL, type text,
  occurred_at timestamptz, correlation_id text, causation_id text, traceparent text,
  tracestate text, content_type text, payload {kind});
ALTER TABLE public.{name} OWNER TO outboxd;""")
        tables[kind] = name
    return tables


def insert(tables):
    """One transaction per table; returns the rows by id with their table and payload kind."""
    by_id = {}
    for kind, name in tables.items():
        values = []
        for r in rows_for(kind):
            values.append(
                f"({literal(r['id'])}, 'order', {literal(r['aggid'])}, {literal(r['type'])}, "
                f"{opt(r['occurred'])}, {opt(r['corr'])}, {opt(r['caus'])}, {opt(r['tp'])}, "
                f"{opt(r['ts'])}, {opt(r['ct'])}, {r['payload_sql']})")
            by_id[r["id"]] = dict(r, table="public." + name, kind=kind)
        psql(CONNINFO, f"INSERT INTO public.{name} (id, aggregatetype, aggregateid, type, "
                       "occurred_at, correlation_id, causation_id, traceparent, tracestate, "
                       f"content_type, payload) VALUES {', '.join(values)};")
    return by_id


def run_outboxd(tag, tables, extra):
    topic = f"contract.{RUN}.{tag}"
    config = os.path.join(WORK, f"{tag}.toml")
    table_list = ", ".join(f'"public.{t}"' for t in tables.values())
    with open(config, "w") as f:
        f.write(f"""[postgres]
conninfo = "{CONNINFO}"
slot = "contract_{RUN}_{tag}"
publication = "contract_{RUN}_{tag}"
tables = [{table_list}]

[kafka]
"bootstrap.servers" = "{BOOTSTRAP}"

[outbox]
topic = "{topic}"
dead_letter_topic = "{topic}.dlq"
{extra}
""")
    log = open(os.path.join(WORK, f"{tag}.log"), "w")
    proc = subprocess.Popen([OUTBOXD, "run", "--config", config], stdout=log, stderr=log)
    return proc, topic


def wait_streaming(tag, deadline_s=60):
    """Rows inserted before the slot exists would never be streamed."""
    end = time.time() + deadline_s
    while time.time() < end:
        if psql(ADMIN, "SELECT 1 FROM pg_replication_slots WHERE slot_name = "
                       f"'contract_{RUN}_{tag}' AND active").strip() == "1":
            return
        time.sleep(0.5)
    raise SystemExit(f"{tag}: outboxd did not start streaming within {deadline_s} s")


def dump(topic, want, deadline_s=90):
    end = time.time() + deadline_s
    records = []
    while time.time() < end:
        out = subprocess.run([DUMP, BOOTSTRAP, topic], capture_output=True, text=True)
        if out.returncode == 0:
            records = [json.loads(line) for line in out.stdout.splitlines() if line]
            if len(records) >= want:
                return records
        time.sleep(1)
    raise SystemExit(f"{topic}: {len(records)} of {want} records after {deadline_s} s")


def b64(value):
    return None if value is None else base64.b64decode(value)


def headers_of(record):
    return {name: b64(value) for name, value in record["headers"]}


def content_type(row):
    if row["ct"] is not None:
        return row["ct"]
    if row["payload"] is None:
        return ""
    return {"jsonb": "application/json", "text": "text/plain; charset=utf-8",
            "bytea": "application/octet-stream"}[row["kind"]]


def micros(ts):
    return ts.seconds * 1_000_000 + ts.nanos // 1000


def check_trace_headers(tag, row, headers):
    if row["tp"] == TRACEPARENT:
        check(headers.get("traceparent") == TRACEPARENT.encode(), f"{tag}: traceparent header")
        check(headers.get("tracestate") == TRACESTATE.encode(), f"{tag}: tracestate header")
    else:
        check("traceparent" not in headers and "tracestate" not in headers,
              f"{tag} {row['aggid']}: no trace headers for an absent or invalid traceparent")


def check_event(tag, row, event, commit):
    """Fields of a decoded outboxd.v1.Event against the inserted row."""
    what = f"{tag} {row['kind']} {row['aggid']}"
    check(event.id == row["id"], f"{what}: id")
    check(event.aggregate_type == "order", f"{what}: aggregate_type")
    check(event.aggregate_id == row["aggid"], f"{what}: aggregate_id")
    check(event.type == row["type"], f"{what}: type")
    check(event.correlation_id == (row["corr"] or ""), f"{what}: correlation_id")
    check(event.causation_id == (row["caus"] or ""), f"{what}: causation_id")
    check(event.traceparent == (TRACEPARENT if row["tp"] == TRACEPARENT else ""),
          f"{what}: traceparent")
    check(event.tracestate == (TRACESTATE if row["tp"] == TRACEPARENT else ""),
          f"{what}: tracestate")
    check(event.content_type == content_type(row), f"{what}: content_type {event.content_type!r}")
    src = event.source
    check(src.table == row["table"], f"{what}: source.table")
    check(src.commit_lsn > 0 and src.lsn > 0 and src.lsn < src.commit_lsn,
          f"{what}: source LSNs {src.lsn} < {src.commit_lsn}")
    check(src.xid > 0, f"{what}: source.xid")
    commit.setdefault(row["table"], (src.commit_lsn, src.xid))
    check(commit[row["table"]] == (src.commit_lsn, src.xid), f"{what}: one transaction")
    if row["occurred"] is not None:
        want = int(row["occurred"].timestamp()) * 1_000_000 + row["occurred"].microsecond
        check(micros(event.occurred_at) == want, f"{what}: occurred_at")
    else:
        check(micros(event.occurred_at) == micros(src.commit_time), f"{what}: occurred_at = commit")
    age = time.time() - src.commit_time.seconds
    check(0 <= age < 600, f"{what}: commit_time is recent ({age:.0f} s ago)")


def payload_matches(row, data):
    if row["payload"] is None:
        return data is None
    if row["kind"] == "jsonb":  # jsonb re-renders the text; compare as JSON.
        return json.loads(data) == json.loads(row["payload"])
    return data == row["payload"]


def verify_protobuf(records, rows):
    commit = {}
    for rec in records:
        event = event_pb2.Event.FromString(b64(rec["value"]))
        row = rows[event.id]
        check_event("envelope-protobuf", row, event, commit)
        data = event.payload if event.WhichOneof("data") == "payload" else None
        check(payload_matches(row, data), f"envelope-protobuf {row['aggid']}: payload")
        check(b64(rec["key"]) == row["aggid"].encode(), "envelope-protobuf: key")
        headers = headers_of(rec)
        check(headers.get("id") == row["id"].encode(), "envelope-protobuf: id header")
        check_trace_headers("envelope-protobuf", row, headers)


def verify_json(records, rows):
    commit = {}
    for rec in records:
        text = b64(rec["value"]).decode("utf-8")
        event = json_format.Parse(text, event_pb2.Event())  # Canonical mapping, strictly.
        row = rows[event.id]
        check_event("envelope-json", row, event, commit)
        obj = json.loads(text)
        if row["payload"] is None:
            check("payload" not in obj and "payloadJson" not in obj, "envelope-json: NULL payload")
        elif row["kind"] == "jsonb":
            check(obj.get("payloadJson") == json.loads(row["payload"]),
                  f"envelope-json {row['aggid']}: payloadJson embedded")
            check(event.WhichOneof("data") == "payload_json", "envelope-json: payload_json set")
        else:
            check(base64.b64decode(obj.get("payload", "")) == row["payload"],
                  f"envelope-json {row['kind']} {row['aggid']}: payload base64")
        check(isinstance(obj["source"]["commitLsn"], str), "envelope-json: uint64 as a string")
        check(obj["occurredAt"].endswith("Z"), "envelope-json: RFC 3339 UTC")
        check(b64(rec["key"]) == row["aggid"].encode(), "envelope-json: key")
        check_trace_headers("envelope-json", row, headers_of(rec))


def check_cloudevent(tag, row, event, source_of, datacontenttype):
    what = f"{tag} {row['kind']} {row['aggid']}"
    check(event["specversion"] == "1.0", f"{what}: specversion")
    check(event["id"] == row["id"], f"{what}: id")
    check(event["source"] == source_of(row), f"{what}: source {event['source']}")
    check(event["type"] == row["type"], f"{what}: type")
    check(event["subject"] == row["aggid"], f"{what}: subject")
    check(event.get("correlationid") == row["corr"], f"{what}: correlationid")
    check(event.get("causationid") == row["caus"], f"{what}: causationid")
    if row["occurred"] is not None:
        check(datetime.fromisoformat(event["time"].replace("Z", "+00:00")) == row["occurred"],
              f"{what}: time {event['time']}")
    want_type = content_type(row) or None
    check(datacontenttype == want_type, f"{what}: datacontenttype {datacontenttype!r}")


def verify_cloudevents(tag, records, rows, structured, source_of):
    for rec in records:
        headers = headers_of(rec)
        message = KafkaMessage(headers={k: v for k, v in headers.items() if v is not None},
                               key=b64(rec["key"]), value=b64(rec["value"]))
        if structured:
            check(headers.get("content-type") == b"application/cloudevents+json",
                  f"{tag}: content-type header")
            event = from_structured(message)
            # The SDK overwrites datacontenttype with the record's content-type header
            # (application/cloudevents+json); the attribute itself is in the JSON.
            datacontenttype = json.loads(message.value).get("datacontenttype")
        else:
            # The SDK's default data unmarshaller is json.loads; the data here is any bytes.
            event = from_binary(message, data_unmarshaller=lambda value: value)
            datacontenttype = event.get("datacontenttype")
        row = rows[event["id"]]
        check_cloudevent(tag, row, event, source_of, datacontenttype)
        data = event.data
        if structured and row["kind"] == "jsonb" and data is not None:
            data = json.dumps(data).encode()  # The SDK parsed the embedded JSON.
        check(payload_matches(row, data), f"{tag} {row['kind']} {row['aggid']}: data")
        check_trace_headers(tag, row, headers)


def verify_raw(records, rows):
    for rec in records:
        headers = headers_of(rec)
        row = rows[headers["id"].decode()]
        check(payload_matches(row, b64(rec["value"])), f"raw {row['aggid']}: value")
        check_trace_headers("raw", row, headers)


def stop(proc):
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()


SCENARIOS = [
    ("protobuf", 'format = "envelope-protobuf"', verify_protobuf),
    ("json", 'format = "envelope-json"', verify_json),
    ("cebinary", 'format = "cloudevents"',
     lambda recs, rows: verify_cloudevents("cloudevents binary", recs, rows, False,
                                           lambda row: "/outboxd/" + row["table"])),
    ("cestructured",
     'format = "cloudevents"\ncloudevents_mode = "structured"\n'
     'cloudevents_source = "/orders-service"',
     lambda recs, rows: verify_cloudevents("cloudevents structured", recs, rows, True,
                                           lambda row: "/orders-service")),
    ("raw", 'traceparent_column = "traceparent"', verify_raw),
]


def main():
    os.makedirs(WORK, exist_ok=True)
    only = os.environ.get("CONTRACT_ONLY")
    for tag, extra, verify in SCENARIOS:
        if only and tag != only:
            continue
        tables = setup_tables(tag)
        proc, topic = run_outboxd(tag, tables, extra)
        try:
            wait_streaming(tag)
            rows = insert(tables)
            records = dump(topic, len(rows))
            check(len(records) == len(rows), f"{tag}: {len(records)} records for {len(rows)} rows")
            verify(records, rows)
            with open(os.path.join(WORK, f"{tag}.records.jsonl"), "w") as f:
                for rec in records:
                    f.write(json.dumps(rec) + "\n")
            print(f"{tag}: {len(records)} records decoded", flush=True)
        finally:
            stop(proc)
            psql(ADMIN, f"SELECT pg_drop_replication_slot('contract_{RUN}_{tag}') "
                        "WHERE EXISTS (SELECT 1 FROM pg_replication_slots "
                        f"WHERE slot_name = 'contract_{RUN}_{tag}');")
    if failures:
        print(f"{len(failures)} of {checks[0]} checks failed", flush=True)
        return 1
    print(f"all formats decoded by independent decoders: {checks[0]} checks passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
