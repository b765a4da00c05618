"""outboxd with value_converter = key_converter = "avro" against a real PostgreSQL, Kafka and
Apicurio Registry (its Confluent-compatible API): rows of a jsonb outbox table and of a bytea one
are read back from Kafka, their schema fetched by id from the registry, decoded with fastavro
and compared with what was inserted; the registered schemas are AvroData's. A second outboxd
runs expand_json_payload = true under value_converter = "bytes" with the "avro" delegate: a
jsonb payload becomes the inferred record, a bytea one passes untouched.

Usage: integration_test.py OUTBOXD WORKDIR (with the services' env and
OUTBOXD_TEST_SCHEMA_REGISTRY_URL)."""
import json
import os
import io
import struct
import subprocess
import sys
import time
import urllib.request

import fastavro
from confluent_kafka import Consumer

JSONB_VALUE = ('["null",{"type":"string","connect.version":1,'
               '"connect.name":"io.debezium.data.Json"}]')
BYTES_VALUE = '["null","bytes"]'
KEY = '"string"'


def psql(sql):
    subprocess.run(["psql", "-v", "ON_ERROR_STOP=1", "-q", os.environ["OUTBOXD_TEST_PG_ADMIN_CONNINFO"],
                    "-c", sql], check=True)


def registry(path):
    with urllib.request.urlopen(os.environ["OUTBOXD_TEST_SCHEMA_REGISTRY_URL"] + path,
                                timeout=10) as r:
        return json.loads(r.read())


def put_config(subject, level):
    req = urllib.request.Request(
        os.environ["OUTBOXD_TEST_SCHEMA_REGISTRY_URL"] + "/config/" + subject,
        data=json.dumps({"compatibility": level}).encode(), method="PUT",
        headers={"Content-Type": "application/vnd.schemaregistry.v1+json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def post_schema(subject, schema):
    req = urllib.request.Request(
        os.environ["OUTBOXD_TEST_SCHEMA_REGISTRY_URL"] + f"/subjects/{subject}/versions",
        data=json.dumps({"schema": schema}).encode(), method="POST",
        headers={"Content-Type": "application/vnd.schemaregistry.v1+json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def apicurio(command):
    subprocess.run([os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "apicurio"),
                    command, os.environ["OUTBOXD_TEST_SERVICES_DIR"]], check=True)


def consume(topic, count, timeout_s=60):
    c = Consumer({"bootstrap.servers": os.environ["OUTBOXD_TEST_KAFKA_BOOTSTRAP"],
                  "group.id": "avro-it-%d" % time.time_ns(), "auto.offset.reset": "earliest",
                  "enable.auto.commit": False})
    c.subscribe([topic])
    out = []
    deadline = time.time() + timeout_s
    while len(out) < count and time.time() < deadline:
        m = c.poll(1.0)
        if m is None or m.error():
            continue
        out.append(m)
    c.close()
    return out


def decode(framed):
    magic, schema_id = struct.unpack(">bI", framed[:5])
    assert magic == 0, "magic byte %d" % magic
    schema_text = registry("/schemas/ids/%d" % schema_id)["schema"]
    body = io.BytesIO(framed[5:])
    value = fastavro.schemaless_reader(body, fastavro.parse_schema(json.loads(schema_text)))
    assert body.read() == b"", "bytes left over"
    return value, schema_text


# EXPANDED_PAYLOAD as Postgres sends it (jsonb orders keys by length, then bytes), expanded by
# Debezium 3.6.1's inference ("none" is null: no field) and converted by AvroData.
EXPANDED_PAYLOAD = ('{"address": {"city": "Oslo"}, "tags": ["a", null], "big": 3000000000, '
                    '"none": null, "id": 7, "name": "x", "ratio": 0.5}')
EXPANDED_VALUE = {"id": 7, "big": 3000000000, "name": "x", "tags": ["a", None], "ratio": 0.5,
                  "address": {"city": "Oslo"}}


def optional_field(name, avro_type):
    return '{"name":"%s","type":["null",%s],"default":null}' % (name, avro_type)


EXPANDED_SCHEMA = (
    '["null",{"type":"record","name":"payload","fields":[' + ",".join([
        optional_field("id", '"int"'), optional_field("big", '"long"'),
        optional_field("name", '"string"'),
        optional_field("tags", '{"type":"array","items":["null","string"]}'),
        optional_field("ratio", '"double"'),
        optional_field("address", '{"type":"record","name":"address","namespace":"payload",'
                       '"fields":[' + optional_field("city", '"string"') +
                       '],"connect.name":"payload.address"}')]) +
    '],"connect.name":"payload"}]')


def expanded_phase(outboxd, work, run, prefix, failures):
    """expand_json_payload with BinaryDataConverter's avro delegate: one expanded row (and a
    second of the same shape, one registered version), and a bytea row passed untouched."""
    psql(f"""
      CREATE TABLE public.{run}_json (id uuid PRIMARY KEY, aggregatetype text NOT NULL,
        aggregateid text NOT NULL, type text NOT NULL, payload jsonb);
      CREATE TABLE public.{run}_bin (id uuid PRIMARY KEY, aggregatetype text NOT NULL,
        aggregateid text NOT NULL, type text NOT NULL, payload bytea);
      ALTER TABLE public.{run}_json OWNER TO outboxd;
      ALTER TABLE public.{run}_bin OWNER TO outboxd;""")
    config = os.path.join(work, run + ".toml")
    with open(config, "w") as f:
        f.write(f"""
[postgres]
conninfo = "{os.environ['OUTBOXD_TEST_PG_CONNINFO']}"
tables = ["public.{run}_json", "public.{run}_bin"]
slot = "{run}"
publication = "{run}"
[kafka]
"bootstrap.servers" = "{os.environ['OUTBOXD_TEST_KAFKA_BOOTSTRAP']}"
[outbox]
topic = "{prefix}.${{aggregatetype}}"
value_converter = "bytes"
value_converter_delegate = "avro"
expand_json_payload = true
[schema_registry]
url = "{os.environ['OUTBOXD_TEST_SCHEMA_REGISTRY_URL']}"
""")
    log = open(os.path.join(work, run + ".log"), "w")
    proc = subprocess.Popen([outboxd, "run", "--config", config], stdout=log, stderr=log)
    try:
        time.sleep(3)
        for n in (1, 2):
            payload = EXPANDED_PAYLOAD.replace('"id": 7', f'"id": {n}')
            psql(f"INSERT INTO public.{run}_json VALUES "
                 f"('44444444-0000-0000-0000-00000000000{n}', 'Shape', 'e{n}', 't', '{payload}')")
        psql(f"INSERT INTO public.{run}_bin VALUES "
             f"('55555555-0000-0000-0000-000000000001', 'Raw', 'r1', 't', '\\x00ff80'::bytea)")
        records = consume(prefix + ".Shape", 2)
        if len(records) != 2:
            failures.append(f"{prefix}.Shape: {len(records)} records of 2")
        for n, m in enumerate(records, start=1):
            v, schema = decode(m.value())
            if v != dict(EXPANDED_VALUE, id=n) or schema != EXPANDED_SCHEMA:
                failures.append(f"expanded row {n}: value {v!r} schema {schema}")
            elif m.key() != f"e{n}".encode():
                failures.append(f"expanded row {n}: key {m.key()!r} (StringConverter's text)")
            else:
                print(f"ok   expanded row {n}: {v!r}")
        versions = registry(f"/subjects/{prefix}.Shape-value/versions") if records else []
        if versions != [1]:
            failures.append(f"{prefix}.Shape-value versions {versions}, not one")
        else:
            print(f"ok   subject {prefix}.Shape-value: one version: {EXPANDED_SCHEMA}")
        raw = consume(prefix + ".Raw", 1)
        if len(raw) != 1 or raw[0].value() != bytes([0, 0xFF, 0x80]):
            failures.append(f"bytea under the avro delegate: {[r.value() for r in raw]!r}")
        else:
            print("ok   a bytea payload passes the avro delegate untouched")
        if proc.poll() is not None:
            failures.append(f"outboxd (expanded) exited ({proc.returncode}); log {log.name}")
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(30)
        log.close()
        psql(f"SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
             f"WHERE slot_name = '{run}'")
        psql(f"DROP TABLE public.{run}_json, public.{run}_bin; DROP PUBLICATION IF EXISTS {run}")


def main():
    outboxd, work = sys.argv[1], sys.argv[2]
    run = "avro_it_%d" % (time.time_ns() % 10**9)
    prefix = run.replace("_", ".")
    expanded_failures = []
    expanded_phase(outboxd, work, run + "_x", prefix + ".x", expanded_failures)
    psql(f"""
      CREATE TABLE public.{run}_json (id uuid PRIMARY KEY, aggregatetype text NOT NULL,
        aggregateid text NOT NULL, type text NOT NULL, payload jsonb);
      CREATE TABLE public.{run}_bin (id uuid PRIMARY KEY, aggregatetype text NOT NULL,
        aggregateid text NOT NULL, type text NOT NULL, payload bytea);
      ALTER TABLE public.{run}_json OWNER TO outboxd;
      ALTER TABLE public.{run}_bin OWNER TO outboxd;
      CREATE TABLE public.{run}_int (id uuid PRIMARY KEY, aggregatetype text NOT NULL,
        aggregateid text NOT NULL, type text NOT NULL, payload integer);
      ALTER TABLE public.{run}_int OWNER TO outboxd;""")
    config = os.path.join(work, run + ".toml")
    with open(config, "w") as f:
        f.write(f"""
[postgres]
conninfo = "{os.environ['OUTBOXD_TEST_PG_CONNINFO']}"
tables = ["public.{run}_json", "public.{run}_bin", "public.{run}_int"]
slot = "{run}"
publication = "{run}"
[kafka]
"bootstrap.servers" = "{os.environ['OUTBOXD_TEST_KAFKA_BOOTSTRAP']}"
[outbox]
topic = "{prefix}.${{aggregatetype}}"
key_converter = "avro"
value_converter = "avro"
[schema_registry]
url = "{os.environ['OUTBOXD_TEST_SCHEMA_REGISTRY_URL']}"
""")
    log = open(os.path.join(work, run + ".log"), "w")
    proc = subprocess.Popen([outboxd, "run", "--config", config], stdout=log, stderr=log)
    failures = []
    try:
        time.sleep(3)
        json_rows = [
            ("11111111-0000-0000-0000-000000000001", "a1", '{"n": 1, "s": "é ✓ 😀"}'),
            ("11111111-0000-0000-0000-000000000002", "a2", None),
            ("11111111-0000-0000-0000-000000000003", "a1", '[1, 2]'),
        ]
        for id_, key, payload in json_rows:
            value = "NULL" if payload is None else "'" + payload + "'"
            psql(f"INSERT INTO public.{run}_json VALUES ('{id_}', 'Order', '{key}', 't', {value})")
        bin_rows = [("22222222-0000-0000-0000-000000000001", "b1", bytes([0, 1, 255, 128])),
                    ("22222222-0000-0000-0000-000000000002", "b1", b"")]
        for id_, key, payload in bin_rows:
            psql(f"INSERT INTO public.{run}_bin VALUES ('{id_}', 'Blob', '{key}', 't', "
                 f"'\\x{payload.hex()}'::bytea)")
        checks = [(prefix + ".Order", json_rows, JSONB_VALUE,
                   lambda p: None if p is None else json.dumps(json.loads(p), separators=(", ", ": "))),
                  (prefix + ".Blob", bin_rows, BYTES_VALUE, lambda p: p)]
        for topic, rows, value_schema, canonical in checks:
            records = consume(topic, len(rows))
            if len(records) != len(rows):
                failures.append(f"{topic}: {len(records)} records of {len(rows)}")
                continue
            for (id_, key, payload), m in zip(rows, records):
                k, key_schema = decode(m.key())
                if k != key or key_schema != KEY:
                    failures.append(f"{topic} {id_}: key {k!r} schema {key_schema}")
                if payload is None:
                    if m.value() is not None:
                        failures.append(f"{topic} {id_}: a NULL payload is not a null value")
                    continue
                v, schema = decode(m.value())
                expected = canonical(payload)
                got = v if isinstance(v, bytes) else json.dumps(json.loads(v), separators=(", ", ": "))
                if got != expected or schema != value_schema:
                    failures.append(f"{topic} {id_}: value {v!r} schema {schema}")
                else:
                    print(f"ok   {topic} {id_}: key {k!r} value {v!r}")
            subjects = registry("/subjects")
            for subject in (topic + "-key", topic + "-value"):
                if subject not in subjects:
                    failures.append(f"subject {subject} not registered ({subjects})")
            latest = registry(f"/subjects/{topic}-value/versions/latest")
            print(f"ok   subject {topic}-value version {latest['version']} id {latest['id']}: "
                  f"{latest['schema']}")
        if os.environ.get("OUTBOXD_AVRO_IT_RESTART_REGISTRY") == "1":
            # The registry down: the row waits (nothing dead-lettered), then arrives.
            apicurio("stop")
            psql(f"INSERT INTO public.{run}_json VALUES "
                 f"('11111111-0000-0000-0000-000000000009', 'Later', 'a9', 't', '{{}}')")
            time.sleep(5)
            apicurio("start")
            late = consume(prefix + ".Later", 1, timeout_s=90)
            if len(late) != 1 or decode(late[0].value())[0] != "{}":
                failures.append("the row written while the registry was down did not arrive")
            else:
                print("ok   a row written while the registry was down arrived after it came back")
            if proc.poll() is not None:
                failures.append(f"outboxd exited ({proc.returncode}) while the registry was down")
        # An incompatible schema under BACKWARD: exit 3 naming the subject. (The registry keeps
        # its subjects in memory: after a restart, the jsonb schema is registered again here.)
        post_schema(prefix + ".Order-value", JSONB_VALUE)
        put_config(prefix + ".Order-value", "BACKWARD")
        psql(f"INSERT INTO public.{run}_int VALUES "
             f"('33333333-0000-0000-0000-000000000001', 'Order', 'a1', 't', 7)")
        try:
            code = proc.wait(60)
        except subprocess.TimeoutExpired:
            code = None
        log.flush()
        text = open(log.name).read()
        if code != 3 or f"{prefix}.Order-value" not in text or "incompatible" not in text:
            failures.append(f"an incompatible schema: exit {code}, log tail {text[-600:]!r}")
        else:
            line = [l for l in text.splitlines() if "incompatible" in l][-1]
            print(f"ok   an incompatible schema stops outboxd with exit 3: {line[:400]}")
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(30)
        log.close()
        psql(f"SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
             f"WHERE slot_name = '{run}'")
        psql(f"DROP TABLE public.{run}_json, public.{run}_bin, public.{run}_int; "
             f"DROP PUBLICATION IF EXISTS {run}")
    failures = expanded_failures + failures
    for f in failures:
        print("FAIL", f)
    print(f"{len(failures)} failures; outboxd log: {log.name}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
