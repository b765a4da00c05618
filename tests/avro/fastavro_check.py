"""Decodes the samples of avro_samples (stdin, one JSON line each) with fastavro, an
independent Avro implementation: the schema must parse, the framing must be Confluent's, the
value must decode to the expected one with nothing left over, and fastavro's own encoding of
that value must be the same bytes."""
import io
import json
import struct
import sys

import fastavro


def plain(value):
    if isinstance(value, bytes):
        return list(value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def check(sample):
    framed = bytes.fromhex(sample["framed"])
    magic, schema_id = struct.unpack(">bI", framed[:5])
    assert magic == 0, f"magic byte {magic}"
    assert schema_id == sample["id"], f"schema id {schema_id} != {sample['id']}"
    schema = fastavro.parse_schema(sample["schema"])
    body = io.BytesIO(framed[5:])
    value = fastavro.schemaless_reader(body, schema)
    assert body.read() == b"", "bytes left after the value"
    assert plain(value) == sample["expected"], f"decoded {plain(value)!r}"
    again = io.BytesIO()
    fastavro.schemaless_writer(again, schema, value)
    assert again.getvalue() == framed[5:], "fastavro encodes the value differently"


def main():
    failures = 0
    count = 0
    for line in sys.stdin:
        sample = json.loads(line)
        count += 1
        try:
            check(sample)
            print(f"ok   {sample['name']}")
        except AssertionError as e:
            failures += 1
            print(f"FAIL {sample['name']}: {e}")
    print(f"{count} samples, {failures} failures")
    return 1 if failures or count == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
