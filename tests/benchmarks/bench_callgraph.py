"""Call edges against a public call-graph micro-benchmark: PyCG's.

PyCG (vitsalis/PyCG, "PyCG: Practical Call Graph Generation in Python",
ICSE 2021) ships ``micro-benchmark/snippets``: 119 small programs in 17
categories, each with the call graph its authors wrote by hand
(``callgraph.json``). Point ``--snippets`` at that folder of a checkout;
nothing of it is copied here.

Each program is extracted and linked in process as an index would (the rows
of every file, linked over the program: tests/linked.py) and its *bound*
call edges compared with the expected graph, both as ``module.qualname``:

- calls of a builtin (``<builtin>.len``) are left out of both sides:
  freshindex files them as ``external``, not as edges to a definition;
- PyCG writes an instantiation ``C()`` as an edge to ``C.__init__`` when the
  class has one; freshindex binds the call to the class (``refs
  C.__init__`` lists it, query/references.py). The ``constructor`` column
  maps an edge to a class onto its ``__init__`` (through the bases), as PyCG
  does; the ``class`` column keeps it an edge to the class.

Usage: python tests/benchmarks/bench_callgraph.py --snippets PATH/micro-benchmark/snippets
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.linked import bound_calls  # noqa: E402

Edge = tuple[str, str]


def module(path: str) -> str:
    stem = path[:-3]
    if stem.endswith("/__init__"):
        stem = stem[: -len("/__init__")]
    return stem.replace("/", ".")


def ours(files: dict[str, str | bytes], constructors: bool) -> set[Edge]:
    out = set()
    for e, reached, linker in bound_calls(files):
        caller = module(e["path"]) + (f".{e['source']}" if e["source"] else "")
        for row in reached:
            if constructors and row["kind"] == "class":
                init = linker.find(row["path"], f"{row['qualname']}.__init__")
                if init is None:
                    continue  # object.__init__: PyCG has no edge
                row = init
            out.add((caller, f"{module(row['path'])}.{row['qualname']}"))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--snippets", required=True, type=Path)
    args = ap.parse_args()
    programs = sorted(args.snippets.glob("*/*/callgraph.json"))
    if not programs:
        raise SystemExit(f"no */*/callgraph.json under {args.snippets}")
    # (mode, category) -> [true positives, false positives, false negatives]
    counts: dict[tuple[str, str], list[int]] = {}
    for graph in programs:
        folder = graph.parent
        files: dict[str, str | bytes] = {
            f.relative_to(folder).as_posix(): f.read_text() for f in folder.rglob("*.py")
        }
        expected = json.loads(graph.read_text())
        want = {(a, b) for a, bs in expected.items() for b in bs if not b.startswith("<builtin>")}
        for mode, constructors in (("constructor", True), ("class", False)):
            got = ours(files, constructors)
            for key in ((mode, folder.parent.name), (mode, "all")):
                c = counts.setdefault(key, [0, 0, 0])
                c[0] += len(got & want)
                c[1] += len(got - want)
                c[2] += len(want - got)

    def pr(c: list[int]) -> str:
        p = c[0] / (c[0] + c[1]) if c[0] + c[1] else 1.0
        r = c[0] / (c[0] + c[2]) if c[0] + c[2] else 1.0
        return f"{p:.2f} | {r:.2f}"

    categories = [*sorted({cat for _m, cat in counts if cat != "all"}), "all"]
    print(
        f"**PyCG's micro-benchmark: {len(programs)} programs; bound call edges against the "
        "hand-written call graphs, builtins left out**\n"
    )
    print("| category | edges expected | constructor P | constructor R | class P | class R |")
    print("|---|---|---|---|---|---|")
    for cat in categories:
        c, k = counts[("constructor", cat)], counts[("class", cat)]
        print(f"| {cat} | {c[0] + c[2]} | {pr(c)} | {pr(k)} |")


if __name__ == "__main__":
    from tests.benchmarks.report import table_file

    with table_file("callgraph"):
        main()
