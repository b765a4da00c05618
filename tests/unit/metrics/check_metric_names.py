#!/usr/bin/env python3
"""Usage: check_metric_names.py RENDER_BINARY [--documents FILE] FILE...

Checks that every outboxd_* name used in each FILE (alert rules, dashboard) is a metric that
RENDER_BINARY's /metrics page declares (histograms also as _bucket/_sum/_count), and with
--documents that FILE (docs/operating.md) names every declared metric. Exits 1 listing the misses.
"""
import re
import subprocess
import sys


def declared_names(binary):
    text = subprocess.run([binary], check=True, capture_output=True, text=True).stdout
    names = set()
    for name, kind in re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M):
        names.add(name)
        if kind == "histogram":
            names.update(name + s for s in ("_bucket", "_sum", "_count"))
    return names, {n for n, _ in re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M)}


def main(argv):
    binary, rest = argv[1], argv[2:]
    documents = None
    if rest[:1] == ["--documents"]:
        documents, rest = rest[1], rest[2:]
    names, families = declared_names(binary)
    problems = []
    for path in rest:
        used = set(re.findall(r"outboxd_[a-z_]+[a-z]", open(path, encoding="utf-8").read()))
        problems += [f"{path}: {n} is not a metric outboxd exports" for n in sorted(used - names)]
        if not used:
            problems.append(f"{path}: uses no outboxd metric at all")
    if documents:
        text = open(documents, encoding="utf-8").read()
        problems += [f"{documents}: does not document {n}" for n in sorted(families)
                     if not re.search(rf"\b{n}\b", text)]
    for p in problems:
        print(p, file=sys.stderr)
    print(f"{len(families)} metrics checked against {len(rest)} files"
          + (f" and {documents}" if documents else ""))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
