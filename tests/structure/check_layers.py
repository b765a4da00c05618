#!/usr/bin/env python3
"""The rooms of src/ and their include arrows, checked against the module order.

Usage: check_layers.py SRC_DIR [--print]

A room is a folder under src/ (src/encoding/avro is a room inside src/encoding). An arrow
A -> B means a file of A includes a header of B. The check fails, naming each offender, when
  - an arrow points up src/CMakeLists.txt's module list (a module uses one listed after it),
  - a sub-folder includes its parent folder's files (the parent composes its sub-rooms),
  - the rooms' arrows form a cycle,
  - a file is longer than 500 lines, or a file of src/relay longer than 300.
--print prints every room with its size and arrows, bottom up, then the verdict.
"""
import pathlib
import re
import sys

MAX_LINES = 500
MAX_RELAY_LINES = 300
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def module_order(src):
    text = (src / "CMakeLists.txt").read_text()
    match = re.search(r"foreach\(module ([^)]*)\)", text)
    if not match:
        sys.exit(f"{src}/CMakeLists.txt: no `foreach(module ...)` list of modules found")
    return match.group(1).split()


def room_of(path, src):
    return str(path.parent.relative_to(src))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    src = pathlib.Path(sys.argv[1]).resolve()
    show = "--print" in sys.argv[2:]
    order = module_order(src)
    rank = {m: i for i, m in enumerate(order)}
    files = sorted(p for p in src.rglob("*") if p.suffix in (".cc", ".h"))
    if not files:
        sys.exit(f"no .cc or .h files under {src}: wrong directory?")
    rooms = {}
    arrows = {}
    problems = []
    for f in files:
        room = room_of(f, src)
        text = f.read_text()
        lines = text.count("\n")
        rooms.setdefault(room, [0, 0])
        rooms[room][0] += 1
        rooms[room][1] += lines
        limit = MAX_RELAY_LINES if room == "relay" else MAX_LINES
        if lines > limit:
            problems.append(f"{f.relative_to(src.parent)}: {lines} lines (at most {limit} here)")
        for inc in INCLUDE.findall(text):
            target = src / inc
            if not target.exists():
                continue  # A system or generated header.
            to = room_of(target, src)
            if to != room:
                arrows.setdefault((room, to), set()).add(f.name)
    for (a, b), via in sorted(arrows.items()):
        top_a, top_b = a.split("/")[0], b.split("/")[0]
        if top_a not in rank or top_b not in rank:
            problems.append(f"src/{a} -> src/{b}: a room missing from the module list")
        elif top_a != top_b and rank[top_b] > rank[top_a]:
            problems.append(f"src/{a} -> src/{b} points up the module list ({', '.join(sorted(via))})")
        elif top_a == top_b and b != a and a.startswith(b + "/"):
            problems.append(f"src/{a} -> src/{b}: a sub-room includes its parent ({', '.join(sorted(via))})")
    # Cycles: depth-first search over the room graph.
    graph = {}
    for a, b in arrows:
        graph.setdefault(a, set()).add(b)
    state = {}

    def visit(node, stack):
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt):] + [nxt] if nxt in stack else [node, nxt]
                problems.append("cycle: " + " -> ".join("src/" + c for c in cycle))
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    if show:
        def key(room):
            top = room.split("/")[0]
            return (rank.get(top, len(rank)), room.count("/") * -1, room)
        for room in sorted(rooms, key=key):
            count, lines = rooms[room]
            outs = sorted(b for (a, b) in arrows if a == room)
            print(f"src/{room:<22} {count:3d} files {lines:6d} lines -> {', '.join(outs) or '-'}")
    for p in problems:
        print("FAIL", p)
    print(f"{len(rooms)} rooms, {len(arrows)} arrows, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
