"""Which files matter to a target: the ranked map tier of a context package.

A name-ranked repository map (aider's) wins recall of "the files a change
also touches" by naming many files cheaply. This ranks files on better
evidence than name counts, and a package spends what its earlier tiers
leave on one compact entry per file (query/expansion.py, query/packing.py):

- **the bound reference graph**: a personalised PageRank from the target's
  files over files linked by *bound* claims (calls, uses, imports, bases:
  the claims' defining files, indexer/bind_python.py), both ways, so callers
  and callees of the target's file rank first and their neighbours next;
- **co-change history**: the files that changed in the same commits as a
  target's file, each commit weighted by how recent it is (half the weight
  every ``HALF_LIFE`` commits) and by how small (a commit touching 40 files
  says little about any pair of them); read from the commit graph with
  pygit2, bounded to the last ``WALK`` commits;
- **shared names**: files that name what a target's file defines, or
  define what it names, counted by name (the signal a name-ranked map runs
  on alone), each name weighed by how rare it is, so ``get`` says less
  than ``build_overlay``; it catches what binding could not prove;
- **tests**: a test file linked to a target's file ranks with a bonus.

The graph is read once per version and process (a warm service ranks in
milliseconds); the history walk, once per commit and target file.
"""

from __future__ import annotations

import os
import threading
from collections import defaultdict
from collections.abc import Iterable

import pyarrow as pa
import pyarrow.dataset as ds
import pygit2
from cachetools import LRUCache

from freshindex.catalog.reader import IndexVersion

WALK = 2000  # commits read for co-change
HALF_LIFE = 200  # commits: a co-change this far back weighs half
LARGE_COMMIT = 40  # files: a commit touching more says little about a pair
PAGERANK_ITERATIONS = 20
DAMPING = 0.85
NEIGHBOURHOOD = 4000  # files: the graph is walked this far from the targets
# weights of the signals, each normalised to 0..1 first
W_GRAPH, W_HISTORY, W_NAMES, W_TEST = 0.35, 0.35, 0.2, 0.10
MAX_NAMES = 400  # names of a target's files looked up for the name signal

_graphs: LRUCache[str, dict[str, dict[str, float]]] = LRUCache(maxsize=4)
_history: LRUCache[tuple[str, str], dict[str, float]] = LRUCache(maxsize=256)
_lock = threading.Lock()


def rank(
    repo: pygit2.Repository,
    version: IndexVersion,
    targets: Iterable[str],
    exists: Iterable[str],
    limit: int = 60,
) -> list[tuple[str, float, str]]:
    """Files by how much they matter to ``targets`` (paths), best first, as
    (path, score, why); only files in ``exists`` (the worktree now), never
    a target itself."""
    seeds = list(dict.fromkeys(targets))
    present = set(exists)
    if not seeds:
        return []
    graph = file_graph(version)
    pr = _pagerank(graph, seeds)
    history: dict[str, float] = defaultdict(float)
    for seed in seeds:
        for path, w in co_changes(repo, seed).items():
            history[path] += w
    scores: dict[str, float] = defaultdict(float)
    why: dict[str, list[str]] = defaultdict(list)
    top_pr = max((v for p, v in pr.items() if p not in seeds), default=0.0)
    top_h = max(history.values(), default=0.0)
    for path, v in pr.items():
        if path not in seeds and v > 0 and top_pr > 0:
            scores[path] += W_GRAPH * v / top_pr
            why[path].append("bound references")
    for path, v in history.items():
        if top_h > 0:
            scores[path] += W_HISTORY * v / top_h
            why[path].append("co-changed")
    names = shared_names(version, seeds)
    top_n = max(names.values(), default=0.0)
    for path, v in names.items():
        if path not in seeds and top_n > 0:
            scores[path] += W_NAMES * v / top_n
            if not why[path]:
                why[path].append("shared names")
    for path in list(scores):
        if is_test(path) and any(path in graph.get(s, {}) for s in seeds):
            scores[path] += W_TEST
            why[path].append("a test")
    ranked = sorted(
        ((p, s) for p, s in scores.items() if p in present and p not in seeds),
        key=lambda ps: (-ps[1], ps[0]),
    )
    return [(p, s, ", ".join(why[p])) for p, s in ranked[:limit]]


def file_graph(version: IndexVersion) -> dict[str, dict[str, float]]:
    """File -> file -> weight: the bound claims between two files, both ways."""
    key = version.manifest.versionId
    with _lock:
        found = _graphs.get(key)
    if found is not None:
        return found
    t = version.select(
        "edges",
        (ds.field("binding") == "bound") & ds.field("resolved_path").is_valid(),
        ["path", "resolved_path"],
    )
    # one row per linked pair of files, counted in Arrow: millions of edges
    # are a few hundred thousand pairs
    pairs = t.group_by(["path", "resolved_path"]).aggregate([([], "count_all")])
    graph: dict[str, dict[str, float]] = defaultdict(dict)
    for a, b, n in zip(
        pairs["path"].to_pylist(),
        pairs["resolved_path"].to_pylist(),
        pairs["count_all"].to_pylist(),
        strict=True,
    ):
        if a == b or a is None or b is None:
            continue
        graph[a][b] = graph[a].get(b, 0.0) + n
        graph[b][a] = graph[b].get(a, 0.0) + n
    result = dict(graph)
    with _lock:
        _graphs[key] = result
    return result


def shared_names(version: IndexVersion, seeds: list[str]) -> dict[str, float]:
    """Files that reference a name the seeds define, or define a name the
    seeds reference; each name counts 1/(files it appears in)."""
    wanted = pa.array(seeds, pa.string())
    own = version.select("symbols", ds.field("path").isin(wanted), ["name"])
    used = version.select("edges", ds.field("path").isin(wanted), ["target"])
    defined = sorted({n for n in own["name"].to_pylist() if n and len(n) > 2})[:MAX_NAMES]
    named = sorted({n for n in used["target"].to_pylist() if n and len(n) > 2})[:MAX_NAMES]
    out: dict[str, float] = defaultdict(float)
    for table, column, names in (("edges", "target", defined), ("symbols", "name", named)):
        if not names:
            continue
        t = version.read(
            table,
            where=ds.field(column).isin(pa.array(names, pa.string())),
            columns=["path", column],
        )
        by_name: dict[str, set[str]] = defaultdict(set)
        for path, name in zip(t["path"].to_pylist(), t[column].to_pylist(), strict=True):
            by_name[name].add(path)
        for paths in by_name.values():
            for path in paths:
                out[path] += 1.0 / len(paths)
    return dict(out)


def _pagerank(graph: dict[str, dict[str, float]], seeds: list[str]) -> dict[str, float]:
    """Personalised PageRank restarting at the seeds, over the part of the
    graph within reach of them (at most NEIGHBOURHOOD files)."""
    nodes: dict[str, None] = dict.fromkeys(s for s in seeds if s in graph)
    frontier = list(nodes)
    while frontier and len(nodes) < NEIGHBOURHOOD:
        following = []
        for n in frontier:
            for m in graph.get(n, {}):
                if m not in nodes and len(nodes) < NEIGHBOURHOOD:
                    nodes[m] = None
                    following.append(m)
        frontier = following
    if not nodes:
        return {}
    restart = {s: 1.0 / len(seeds) for s in seeds if s in nodes}
    out_weight = {n: sum(w for m, w in graph.get(n, {}).items() if m in nodes) for n in nodes}
    pr = dict(restart)
    for _ in range(PAGERANK_ITERATIONS):
        nxt: dict[str, float] = defaultdict(float)
        for n, v in pr.items():
            total = out_weight.get(n, 0.0)
            if total <= 0:
                continue
            for m, w in graph.get(n, {}).items():
                if m in nodes:
                    nxt[m] += DAMPING * v * w / total
        for s, r in restart.items():
            nxt[s] += (1 - DAMPING) * r
        pr = nxt
    return pr


def co_changes(repo: pygit2.Repository, path: str) -> dict[str, float]:
    """Files changed in the same commits as ``path``, weighted by recency and
    commit size; merges and the root commit are left out."""
    if repo.head_is_unborn:
        return {}
    head = repo.head.peel(pygit2.Commit)
    key = (str(head.id), path)
    with _lock:
        found = _history.get(key)
    if found is not None:
        return found
    out: dict[str, float] = defaultdict(float)
    for i, commit in enumerate(repo.walk(head.id, pygit2.enums.SortMode.TIME)):
        if i >= WALK:
            break
        if len(commit.parents) != 1:
            continue
        parent = commit.parents[0]
        if tree_entry(commit.tree, path) == tree_entry(parent.tree, path):
            continue
        deltas = parent.tree.diff_to_tree(commit.tree).deltas
        changed = {d.new_file.path for d in deltas} | {d.old_file.path for d in deltas}
        changed.discard(path)
        if not changed or len(changed) > LARGE_COMMIT:
            continue
        weight = 0.5 ** (i / HALF_LIFE) / len(changed) ** 0.5
        for other in changed:
            out[other] += weight
    result = dict(out)
    with _lock:
        _history[key] = result
    return result


def tree_entry(tree: pygit2.Tree, path: str) -> str | None:
    """The OID of ``path`` in ``tree``; None when it is not there."""
    try:
        return str(tree[path].id)
    except KeyError:
        return None


def is_test(path: str) -> bool:
    """A test file by the usual conventions of the languages indexed."""
    name = os.path.basename(path)
    parts = path.lower().split("/")
    return (
        any(p in ("test", "tests", "testing", "__tests__", "spec") for p in parts[:-1])
        or name.startswith("test_")
        or "_test." in name
        or ".test." in name
        or ".spec." in name
    )
