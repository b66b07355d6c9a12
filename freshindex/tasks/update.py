"""Incremental updates: one batch of changes from the indexed commit to REV.

The batch comes from git alone (rename-aware diff of the two commits), so an
update never depends on an event stream: edits no watcher saw are still in it.

Per touched shard: every row derived from a touched path's old content is
removed, the paths as they are at REV are parsed, deleted paths (and the old
side of renames) get tombstones, and renamed files keep their symbol ids.
Shards no path of the batch hashes to are inherited: the new manifest points
at the parent's files, with their digests, without copying them.

Besides the changed files, the batch re-parses *dependents*: files whose
edges resolved to a touched path, and files with an unresolved import whose
last segment names an added file, so ``resolved_path`` equals a full build's.

Over 400 lines on purpose: planning a batch and applying it to a shard share
the plan's fields and the delta rules, and read as one sequence.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
from prefect import task
from prefect.cache_policies import NO_CACHE

from freshindex.catalog.layout import (
    new_version_id,
    next_seq,
    write_staging,
)
from freshindex.catalog.manifest import Manifest, Submodule, TableEntry
from freshindex.catalog.reader import IndexVersion
from freshindex.core import gitrepo
from freshindex.core.tree import TreeEntry
from freshindex.indexer.fixtures_python import is_test_module
from freshindex.indexer.schema import BASE_TABLES, delta_of
from freshindex.indexer.shard import (
    build_shard_tables,
    doc_counts,
    rows_to_table,
    shard_of,
    sort_table,
)
from freshindex.process import collector
from freshindex.tasks.compat import Sealed, unseal
from freshindex.tasks.mode import Mode, assess
from freshindex.tasks.parse import write_shard
from freshindex.tasks.plan import BuildPlan, ShardJob
from freshindex.tasks.source import tree_entries, tree_partition, worker_git_dir
from freshindex.tasks.tables import decode_parquet, store_for


@dataclass(frozen=True)
class ShardBatch:
    """What one touched shard must do."""

    shard: int
    reparse: tuple[str, ...]  # paths to drop from the parent's rows and parse at REV
    tombstones: tuple[tuple[str, str, str], ...]  # (path, old blob, reason)
    renamed_ids: dict[str, str] = field(default_factory=dict)  # new path -> old path
    full: bool = False  # shard-rebuild: parse every file of the shard


@dataclass(frozen=True)
class UpdatePlan:
    build: BuildPlan
    mode: str
    reason: str
    parent: Manifest | None
    batches: tuple[ShardBatch, ...] = ()
    batch: dict[str, Any] = field(default_factory=dict)

    @property
    def trusted(self) -> frozenset[tuple[str, str]]:
        """(key, sha256) of the parent's files, which passed validation when
        it was published: a file the new version inherits is not re-read."""
        return (
            frozenset((t.key, t.sha256) for t in self.parent.tables) if self.parent else frozenset()
        )


def _stem_names(path: str) -> set[str]:
    """Names an import could use for a file: its stem, or its folder for
    __init__.py / index.* / mod.rs."""
    base = posixpath.basename(path)
    stem = base.split(".", 1)[0]
    if stem in ("__init__", "index", "mod"):
        return {posixpath.basename(posixpath.dirname(path))}
    return {stem}


def _is_conftest(path: str) -> bool:
    return posixpath.basename(path) == "conftest.py"


def _folders_above(path: str) -> list[str]:
    """``a/b/c.py`` -> ``["a/b", "a", ""]``."""
    out = []
    while path:
        path = posixpath.dirname(path)
        out.append(path)
    return out


def _segments(spec: str) -> set[str]:
    """The names in a module spec or qualname: ``a.b``, ``a/b``, ``a::b``, ``App\\B``."""
    for sep in ("::", "/", "\\"):
        spec = spec.replace(sep, ".")
    return {p for p in spec.split(".") if p}


@task(name="plan-update", cache_policy=NO_CACHE)
def plan_update(
    repo_path: str,
    store_uri: str,
    rev: str = "HEAD",
    mirror_url: str | None = None,
    branch: str | None = None,
) -> UpdatePlan:
    """``branch``: the branch other than main's that REV names, as the caller
    saw it before resolving REV to a commit; else found from REV here."""
    seen = assess(repo_path, store_uri, rev, branch)
    repo, commit, config, store = seen.repo, seen.commit, seen.config, seen.store
    base, parent, branch, mode, reason = seen.base, seen.parent, seen.branch, seen.mode, seen.reason
    changes = seen.changes
    touched = {p for _s, old, new in changes for p in (old, new) if p}

    entries = tree_entries(str(repo.path), str(commit.tree_id))
    version = new_version_id(str(commit.id))
    # the parent's shard count (a build may have overridden the config's with
    # --shards): paths must hash to the shards the parent put them in
    shards = parent.manifest.shards if parent else config.shards
    job = ShardJob(
        str(repo.path),
        store_uri,
        str(commit.id),
        str(commit.tree_id),
        version,
        shards,
        config,
        mirror_url,
    )
    build = BuildPlan(
        job=job,
        entries=len(entries),
        base=base,
        branch=branch if parent is not None else None,
        submodules=[
            Submodule(path=e.path, head=e.oid, tree=None) for e in entries if e.mode == 0o160000
        ],
    )
    if mode in (Mode.NOOP, Mode.FULL) or parent is None:
        if mode == Mode.FULL:
            write_staging(
                store, version, {"sourceCommit": job.commit, "shards": job.shards, "mode": mode}
            )
        return UpdatePlan(build, mode, reason, parent.manifest if parent else None)

    old_tree = str(parent.manifest.sourceTree)
    old_root: Any = repo.get(old_tree)

    def old_blob(path: str) -> str:
        """A path's blob in the indexed commit: a lookup, not a listing of
        the whole old tree (which grew with the repository)."""
        try:
            return str(old_root[path].id)
        except KeyError:
            return ""

    added = [new for s, _old, new in changes if s == "A"]
    deleted = [old for s, old, _new in changes if s == "D" and old]
    renamed = {new: old for s, old, new in changes if s == "R" and old}
    modified = [new for s, _old, new in changes if s in ("M", "T")]

    # dependents whose resolved edges point at a path that no longer exists,
    # or whose unresolved imports may now resolve to an added file. Resolution
    # looks at the tree's paths only (indexer/resolve.py), never at contents:
    # a modified file changes no other file's rows, so a batch of edits reads
    # no edges at all (it scanned every shard's edges: the one part of an
    # update that grew with the repository)
    reparse = set(touched)
    added_names = {n for p in [*added, *renamed] for n in _stem_names(p)}
    gone = sorted({*deleted, *renamed.values()})
    if gone:
        edges = parent.read("edges", where=ds.field("resolved_path").isin(gone), columns=["path"])
        reparse.update(edges["path"].to_pylist())
    if added_names:
        # an added file can change what a spec resolves to: an unresolved
        # import now found, `from pkg import mod` now a submodule rather than
        # a name of pkg/__init__.py, `pkg.mod.f()` now inside pkg/mod.py. The
        # rows that could are those whose spec, imported name or claimed
        # qualname mentions the added file's name
        named = parent.read(
            "edges",
            where=(ds.field("kind") == "import") | (ds.field("module") != ""),
            columns=["path", "module", "target", "target_qualname"],
        )
        for path, module, target, qual in zip(
            named["path"].to_pylist(),
            named["module"].to_pylist(),
            named["target"].to_pylist(),
            named["target_qualname"].to_pylist(),
            strict=True,
        ):
            words = {target, *_segments(module or ""), *_segments(qual or "")}
            if words & added_names:
                reparse.add(path)

    # pytest: a conftest.py added above a test module is now the one its
    # fixtures' claims name (indexer/fixtures_python.py); found by path, as
    # the claims of a test module do not say which conftest.py they missed
    conftests = {posixpath.dirname(p) for p in [*added, *renamed] if _is_conftest(p)}
    if conftests:  # one pass over the tree, however many were added
        reparse.update(
            e.path
            for e in entries
            if is_test_module(e.path) and not conftests.isdisjoint(_folders_above(e.path))
        )

    by_shard: dict[int, set[str]] = defaultdict(set)
    for p in reparse:
        by_shard[shard_of(p, job.shards)].add(p)
    tombs: dict[int, list[tuple[str, str, str]]] = defaultdict(list)
    for p in deleted:
        tombs[shard_of(p, job.shards)].append((p, old_blob(p), "deleted"))
    for new, old in renamed.items():
        tombs[shard_of(old, job.shards)].append((old, old_blob(old), f"renamed to {new}"))
    touched_shards = sorted(set(by_shard) | set(tombs))
    full_shards = mode == Mode.SHARD_REBUILD
    batches = tuple(
        ShardBatch(
            shard=s,
            # every path here is in the tree at REV or in the indexed one (the
            # diff's both sides, the parent's own rows): rows of the latter
            # are dropped, files of the former parsed
            reparse=tuple(sorted(by_shard.get(s, set()))),
            tombstones=tuple(sorted(tombs.get(s, []))),
            renamed_ids={n: o for n, o in renamed.items() if shard_of(n, job.shards) == s},
            full=full_shards,
        )
        for s in touched_shards
    )
    batch = {
        "fromCommit": parent.manifest.sourceCommit,
        "toCommit": job.commit,
        "mode": mode,
        "reason": reason,
        "added": sorted(added),
        "modified": sorted(modified),
        "deleted": sorted(deleted),
        "renamed": sorted([old, new] for new, old in renamed.items()),
        "dependents": sorted(reparse - touched),
        "shardsRewritten": touched_shards,
        # the seq this batch publishes under; a publish that races loses the
        # pointer swap anyway, so plan time and publish time agree when it lands
        # branch versions are not in main's sequence (catalog.branch_pointer_key)
        "seq": 0 if build.branch else next_seq(store, base),
    }
    write_staging(store, version, {"sourceCommit": job.commit, "shards": job.shards, "mode": mode})
    return UpdatePlan(build, mode, reason, parent.manifest, batches, batch)


def _parent_tables(parent: Manifest, shard: int) -> dict[str, TableEntry]:
    return {t.table: t for t in parent.tables if t.shard == shard}


def _drop_paths(t: pa.Table, paths: set[str]) -> pa.Table:
    if not paths or t.num_rows == 0:
        return t
    return t.filter(pc.invert(pc.is_in(t["path"], value_set=pa.array(sorted(paths)))))


# A touched shard keeps its base files and rewrites only a delta: the rows of
# the paths changed since the base was written, and the base paths they mask
# (indexer/schema.py). Rewriting the base cost in proportion to the shard,
# which grows with the repository (a 10-file update of 30,000 files rewrote
# ten ~240-file shards: 1.4 s against 0.5 s at 3,600 files). Once a delta
# covers more than 1/DELTA_FRACTION of its base's paths (and more than
# DELTA_MIN_PATHS), the update that grows it folds it into a new base: the
# fold costs one shard rewrite per that many changed paths, so the amortised
# cost of a changed file does not grow with the repository either.
DELTA_FRACTION = 4
DELTA_MIN_PATHS = 16


def update_one_shard(
    plan: Sealed[UpdatePlan] | UpdatePlan, sb: ShardBatch, seq: int
) -> list[TableEntry]:
    """The new tables of one touched shard (plain function; the task wraps it).
    The flow passes the plan Sealed (tasks/compat.py): it is large, and
    neither Prefect nor Dask should look inside it."""
    collector.settle()
    return _touch_shard(unseal(plan), sb, seq)


def _touch_shard(plan: UpdatePlan, sb: ShardBatch, seq: int) -> list[TableEntry]:
    job = plan.build.job
    assert plan.parent is not None
    store = store_for(job.store_uri)
    git_dir = worker_git_dir(job.git_dir, job.commit, job.mirror_url)
    repo = gitrepo.cached_repo(git_dir)
    parts, paths = tree_partition(git_dir, job.tree, job.shards, job.config.include_paths)
    shard_entries = parts[sb.shard]
    tombstones = rows_to_table("tombstones", [(p, b, seq, r) for p, b, r in sb.tombstones])

    def index(entries: list[TreeEntry]) -> dict[str, pa.Table]:
        return build_shard_tables(
            entries,
            lambda oid: gitrepo.read_blob(repo, oid),
            job.config,
            paths,
            lambda oid: gitrepo.blob_size(repo, oid),
        )

    if sb.full:
        return write_shard(job, sb.shard, {**index(shard_entries), "tombstones": tombstones})

    want = set(sb.reparse)
    fresh = index([e for e in shard_entries if e.path in want])
    if sb.renamed_ids and fresh["symbols"].num_rows:
        before = fresh["symbols"]["symbol_id"].to_pylist()
        fresh["symbols"] = _carry_ids(store, plan.parent, fresh["symbols"], sb.renamed_ids)
        carried = dict(zip(before, fresh["symbols"]["symbol_id"].to_pylist(), strict=True))
        ids = [carried.get(i, i) for i in fresh["summaries"]["symbol_id"].to_pylist()]
        column = fresh["summaries"].schema.get_field_index("symbol_id")
        fresh["summaries"] = fresh["summaries"].set_column(
            column, "symbol_id", pa.array(ids, pa.string())
        )
    parent = _parent_tables(plan.parent, sb.shard)

    def load(name: str) -> pa.Table:
        return decode_parquet(store.get(parent[name].key).data)

    drop = want | {p for p, _b, _r in sb.tombstones}
    base_docs = load("documents")
    base_paths = set(base_docs["path"].to_pylist())
    layered = "masks" in parent
    masks = set(load("masks")["path"].to_pylist()) if layered else set()
    masks |= drop & base_paths
    delta: dict[str, pa.Table] = {}
    for name in LAYERED:
        kept = _drop_paths(load(delta_of(name)), drop) if layered else None
        delta[name] = sort_table(
            name, pa.concat_tables([kept, fresh[name]]) if kept else fresh[name]
        )
    pending = masks | set(delta["documents"]["path"].to_pylist())
    if len(pending) > max(DELTA_MIN_PATHS, len(base_paths) // DELTA_FRACTION):
        # fold the delta into a new base
        tables = {
            name: sort_table(
                name,
                pa.concat_tables(
                    [
                        _drop_paths(base_docs if name == "documents" else load(name), masks),
                        delta[name],
                    ]
                ),
            )
            for name in LAYERED
        }
        tables["refs"] = sort_table("refs", tables["edges"])
        return write_shard(job, sb.shard, {**tables, "tombstones": tombstones})
    layer = {delta_of(name): t for name, t in delta.items()}
    layer["delta-refs"] = sort_table("refs", delta["edges"])
    layer["masks"] = rows_to_table("masks", [(p,) for p in sorted(masks)])
    hidden = doc_counts(_keep_paths(base_docs, masks))
    written = write_shard(
        job,
        sb.shard,
        {**layer, "tombstones": tombstones},
        stats={"masks": {k: n for k, n in sorted(hidden.items()) if n}},
    )
    return [parent[name] for name in BASE_TABLES] + written


# the tables a delta carries rows of (refs is derived from edges)
LAYERED = ("documents", "symbols", "edges", "summaries")


def _keep_paths(t: pa.Table, paths: set[str]) -> pa.Table:
    return t.filter(pc.is_in(t["path"], value_set=pa.array(sorted(paths), pa.string())))


def _carry_ids(
    store: Any, parent: Manifest, symbols: pa.Table, renamed: dict[str, str]
) -> pa.Table:
    """A renamed file's symbols keep the ids they had under the old path,
    matched by (qualified name, kind, occurrence)."""
    old = IndexVersion(store, parent, None).read(
        "symbols", where=ds.field("path").isin(sorted(set(renamed.values())))
    )
    old_ids: dict[tuple[str, str, str, int], str] = {}
    seen: dict[tuple[str, str, str], int] = defaultdict(int)
    for r in sorted(old.to_pylist(), key=lambda r: (r["path"], r["start_line"], r["start_col"])):
        k = (r["path"], r["qualname"], r["kind"])
        old_ids[(*k, seen[k])] = r["symbol_id"]
        seen[k] += 1
    ids = symbols["symbol_id"].to_pylist()
    rows = symbols.select(["path", "qualname", "kind", "start_line", "start_col"]).to_pylist()
    order = sorted(
        range(len(rows)),
        key=lambda i: (rows[i]["path"], rows[i]["start_line"], rows[i]["start_col"]),
    )
    seen_new: dict[tuple[str, str, str], int] = defaultdict(int)
    for i in order:
        r = rows[i]
        if r["path"] not in renamed:
            continue
        k = (renamed[r["path"]], r["qualname"], r["kind"])
        ids[i] = old_ids.get((*k, seen_new[k]), ids[i])
        seen_new[k] += 1
    return symbols.set_column(
        symbols.schema.get_field_index("symbol_id"), "symbol_id", pa.array(ids, pa.string())
    )


# wraps update_one_shard itself: shipped to Dask by reference (tasks/parse.py)
update_shard = task(name="update-shard", retries=2, retry_delay_seconds=1, cache_policy=NO_CACHE)(
    update_one_shard
)


def inherited_tables(plan: UpdatePlan) -> list[TableEntry]:
    """The parent's table entries of every shard this batch did not touch."""
    assert plan.parent is not None
    touched = {b.shard for b in plan.batches}
    # every table but the parent batch's tombstones, which belong to that batch
    return [t for t in plan.parent.tables if t.shard not in touched and t.table != "tombstones"]
