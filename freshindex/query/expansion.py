"""Expansion of a context package's targets over the bound reference graph:
callers, callees, importers and tests by dependency distance, the contracts
they use, the target package's configuration, and recent history.

Over 400 lines as one concept: one walk outward from the targets, each kind
of neighbour a short method of the same walk."""

from __future__ import annotations

import dataclasses
import posixpath
from typing import Any

import pygit2

from freshindex.core.exceptions import BadInput
from freshindex.indexer.config import matches_any
from freshindex.indexer.schema import FACTS
from freshindex.query import references
from freshindex.query.answer import Answerer
from freshindex.query.fragments import (
    CALLER_CONTEXT_LINES,
    CONFIG,
    CONFIG_HEAD_LINES,
    CONTRACT,
    HISTORY,
    HISTORY_COMMITS,
    HISTORY_WALK,
    IMPLEMENTATION,
    MAP,
    MAP_DEFINITIONS,
    MAP_FILES,
    MAX_DISTANCE,
    MAX_NEIGHBOURS,
    RISK,
    TARGET,
    Candidate,
    Node,
)
from freshindex.query.freshness import Freshness
from freshindex.query.lookup import RETURNED
from freshindex.query.overlay import worktree_index
from freshindex.query.ranking import is_test, rank, tree_entry


class Walk:
    def __init__(self, answerer: Answerer):
        self.a = answerer
        self.seen: dict[str, Node] = {}
        self._configs: dict[str, list[str]] = {}
        self._dirs: dict[str, list[str]] | None = None
        self.changed_paths: list[str] = []  # by changed_targets: every file the diff touched

    def node(self, d: dict[str, Any], distance: int, role: str, why: str) -> Node:
        """A node from a ``defs`` result (camelCase) or a symbols row (snake_case)."""
        get = (lambda k, s: d[k]) if "symbolId" in d else (lambda k, s: d[s])
        return Node(
            symbol_id=str(get("symbolId", "symbol_id")),
            path=str(d["path"]),
            qualname=str(d["qualname"]),
            kind=str(d["kind"]),
            start_line=int(get("startLine", "start_line")),
            end_line=int(get("endLine", "end_line")),
            exported=bool(d.get("exported")),
            origin=str(d.get("origin") or self.a.origin_of(str(d["path"]))),
            distance=distance,
            role=role,
            why=why,
        )

    def file_targets(self, path: str) -> list[Node]:
        rows = [r for r in self.a.rows_now("symbols", path) if not r["container"]]
        return [self.node(r, 0, "target", f"defined in {path}") for r in rows]

    def changed_targets(self, since: str | None) -> tuple[list[Node], list[str]]:
        """The definitions the lines changed since ``since`` (default HEAD)
        fall in, in the worktree as it is now; files without one are targets
        as files."""
        repo = self.a.repo
        try:
            base = repo.revparse_single(since or "HEAD").peel(pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError) as err:
            raise BadInput(f"unknown revision {since!r}") from err
        flags = (
            pygit2.enums.DiffOption.INCLUDE_UNTRACKED
            | pygit2.enums.DiffOption.RECURSE_UNTRACKED_DIRS
        )
        diff = base.tree.diff_to_workdir(flags=flags, context_lines=0)
        targets: list[Node] = []
        files: list[str] = []
        for patch in diff:
            if patch is None:
                continue
            self.changed_paths.append(patch.delta.old_file.path)
            if patch.delta.status == pygit2.enums.DeltaStatus.DELETED:
                continue
            path = patch.delta.new_file.path
            if self.a.guard.refusal(path) is not None:
                continue
            spans = [(h.new_start, h.new_start + max(h.new_lines, 1) - 1) for h in patch.hunks]
            if patch.delta.status == pygit2.enums.DeltaStatus.UNTRACKED or not spans:
                spans = [(1, 1 << 30)]
            hit = [
                r
                for r in self.a.rows_now("symbols", path)
                if any(r["start_line"] <= end and start <= r["end_line"] for start, end in spans)
            ]
            # the innermost definitions only: a changed method, not its whole class
            inner = [
                r
                for r in hit
                if not any(
                    o is not r
                    and r["start_line"] <= o["start_line"]
                    and o["end_line"] <= r["end_line"]
                    and (o["start_line"], o["end_line"]) != (r["start_line"], r["end_line"])
                    for o in hit
                )
            ]
            targets += [
                self.node(r, 0, "target", f"changed since {since or 'HEAD'}") for r in inner
            ]
            if not inner:
                files.append(path)
        if not targets and not files:
            raise BadInput(f"nothing changed since {since or 'HEAD'}")
        return targets, files

    def breakage(self) -> list[Candidate]:
        """For every definition of the indexed version that the changes
        removed, renamed or gave another signature: the references that
        named it in the index and still name it now, each in the high-risk
        tier with its lines. A deleted definition's callers are exactly what
        an agent must not miss, and the overlay's own answer cannot list them
        as bound: their definition is gone."""
        if self.a.freshness not in (Freshness.EXACT, Freshness.OVERLAY):
            return []
        base = dataclasses.replace(
            self.a,
            overlay=None,
            envelope=dataclasses.replace(self.a.envelope, freshness=Freshness.EXACT),
        )
        shadowed = self.a.overlay.shadowed if self.a.overlay is not None else set()
        out: list[Candidate] = []
        seen: set[tuple[str, int, str]] = set()
        for path in dict.fromkeys(self.changed_paths):
            before = self.a.version.symbols_of(path)
            if not before:
                continue
            now = {str(r["qualname"]) for r in self.a.rows_now("symbols", path)}
            sig_before = {
                s["qualname"]: s["signature"] for s in self.a.version.rows_of("summaries", path)
            }
            sig_now = {s["qualname"]: s["signature"] for s in self.a.rows_now("summaries", path)}
            for row in before:
                qual = str(row["qualname"])
                gone = qual not in now
                resigned = not gone and sig_before.get(qual) not in (None, sig_now.get(qual))
                if not (gone or resigned):
                    continue
                what = "removed or renamed" if gone else "changed the signature of"
                refs = references.references(base, base.linker, None, str(row["symbol_id"]))[
                    "bound"
                ]
                for r in refs[:MAX_NEIGHBOURS]:
                    where = str(r["path"])
                    if where in shadowed and not any(
                        e["target"] == r["name"] for e in self.a.rows_now("edges", where)
                    ):
                        continue  # the referring file changed too, and no longer names it
                    line = int(r["startLine"])
                    key = (where, line, qual)
                    if key in seen or (r["kind"] == "import" and where == path):
                        continue
                    seen.add(key)
                    out.append(
                        Candidate(
                            RISK,
                            0,
                            "breaks",
                            where,
                            max(1, line - CALLER_CONTEXT_LINES),
                            line + CALLER_CONTEXT_LINES,
                            str(r.get("caller") or "<module>"),
                            f"line {line} still {'calls' if r['kind'] == 'call' else 'names'} "
                            f"{qual}, which the change {what}",
                            self.a.origin_of(where),
                        )
                    )
        return out

    def expand(self, targets: list[Node], files: list[str]) -> list[Candidate]:
        out: list[Candidate] = []
        for path in files:
            out.append(
                Candidate(
                    TARGET, 0, "target", path, 1, 1 << 30, path, "the file asked for", "source"
                )
            )
        frontier = []
        for n in targets:
            if n.symbol_id not in self.seen:
                self.seen[n.symbol_id] = n
                frontier.append(n)
                out.append(self.definition(TARGET, n))
        # from a target both ways; then callers of callers and callees of
        # callees (the callees of a caller are not about the target)
        for distance in range(1, MAX_DISTANCE + 1):
            following: list[Node] = []
            for n in frontier:
                if n.role != "callee":
                    following += self.callers(n, distance, out)
                if n.role in ("target", "callee"):
                    following += self.callees(n, distance, out)
            frontier = following
        out += self.importers([*dict.fromkeys([*(n.path for n in targets), *files])])
        out += self.config(targets, files)
        out += self.history(targets, files)
        out += self.map([*dict.fromkeys([*(n.path for n in targets), *files])])
        return out

    def map(self, paths: list[str]) -> list[Candidate]:
        """The ranked map tier (query/ranking.py): one entry per file that
        matters to the targets' files, its top definitions' signatures."""
        if not paths or self.a.freshness == Freshness.PARTIAL:
            return []  # the rows may not be the worktree's: nothing to rank on
        ranked = rank(self.a.repo, self.a.version, paths, self.paths(), MAP_FILES)
        # the names the targets' files claim in each other file, and the
        # definitions of other files that claim something in the targets'
        named: dict[str, set[str]] = {}
        for t in paths:
            for e in self.a.rows_now("edges", t):
                if e["binding"] == "bound" and e["resolved_path"] and e["target_qualname"]:
                    head = str(e["target_qualname"]).split("(", 1)[0]
                    named.setdefault(str(e["resolved_path"]), set()).add(head)
        out = []
        for i, (path, _score, why) in enumerate(ranked):
            callers = {
                str(e["source"])
                for e in self.a.rows_now("edges", path)
                if e["resolved_path"] in paths and e["source"]
            }
            want = named.get(path, set()) | callers
            rows = sorted(self.a.rows_now("summaries", path), key=lambda s: s["start_line"])
            # the definitions linked with the targets, then the file's
            # top-level functions and classes, then anything else at the top
            picked = [s for s in rows if s["qualname"] in want]
            top = [s for s in rows if "." not in s["qualname"] and s not in picked]
            picked += [s for s in top if s["kind"] not in ("constant", "variable")]
            picked += [s for s in top if s["kind"] in ("constant", "variable")]
            picked = sorted(picked[:MAP_DEFINITIONS], key=lambda s: s["start_line"])
            lines = [
                f"  {_one_line(str(s['signature']))}  [{s['start_line']}-{s['end_line']}]"
                for s in picked
            ]
            start = min((int(s["start_line"]) for s in picked), default=1)
            end = max((int(s["end_line"]) for s in picked), default=1)
            out.append(
                Candidate(
                    MAP,
                    i,
                    "map",
                    path,
                    start,
                    end,
                    path,
                    why,
                    self.a.origin_of(path),
                    text="\n".join(lines) or "  (no definitions)",
                    form="map",
                )
            )
        return out

    def importers(self, paths: list[str]) -> list[Candidate]:
        """Files that import a target's file: its tests (distance 1) and other
        dependents (distance 2), each as the lines around the import."""
        import pyarrow as pa
        import pyarrow.dataset as ds

        if not paths:
            return []
        shadowed = self.a.overlay.shadowed if self.a.overlay else set()
        wanted = pa.array(paths, pa.string())  # typed: an inferred set may be null-typed
        rows = [
            e
            for e in self.a.version.select(
                "edges",
                (ds.field("kind") == "import") & ds.field("resolved_path").isin(wanted),
                ["path", "start_line", "module", "resolved_path"],
            ).to_pylist()
            if e["path"] not in shadowed
        ]
        if self.a.overlay is not None:
            rows += [
                e
                for e in self.a.overlay.edges
                if e["kind"] == "import" and e["resolved_path"] in paths
            ]
        out = []
        # a file the walk reached already has its fragment
        seen: set[str] = {*paths, *(n.path for n in self.seen.values())}
        for e in sorted(rows, key=lambda e: (not is_test(str(e["path"])), e["path"])):
            path = str(e["path"])
            if path in seen or len(seen) > MAX_NEIGHBOURS:
                continue
            seen.add(path)
            test = is_test(path)
            line = int(e["start_line"])
            out.append(
                Candidate(
                    IMPLEMENTATION,
                    1 if test else 2,
                    "test" if test else "importer",
                    path,
                    max(1, line - CALLER_CONTEXT_LINES),
                    line + CALLER_CONTEXT_LINES,
                    "<import>",
                    f"imports {e['resolved_path']} ({e['module']})",
                    self.a.origin_of(path),
                )
            )
        return out

    def definition(self, tier: int, n: Node) -> Candidate:
        """A definition's fragment: its body, except past distance 1, where
        its summary stands in (breadth before depth: the callers of callers
        are there to be known of, not read)."""
        c = Candidate(
            tier,
            n.distance,
            n.role,
            n.path,
            n.start_line,
            n.end_line,
            n.qualname,
            n.why,
            n.origin,
            n,
        )
        if n.distance > 1:
            c.form = "summary"
        return c

    def callers(self, n: Node, distance: int, out: list[Candidate]) -> list[Node]:
        found = references.references(self.a, self.a.linker, None, n.symbol_id)
        # calls of a method it overrides run it too (dynamic dispatch)
        dispatched = {id(r) for r in found.get("dispatch", [])}
        rows = [*found["bound"], *found.get("dispatch", [])] or (
            found["candidates"] if n.role == "target" else []
        )
        reached: list[Node] = []
        for r in rows[:MAX_NEIGHBOURS]:
            path = str(r["path"])
            bound = r["binding"] == "bound"
            role = "test" if is_test(path) else ("caller" if bound else "candidate")
            if id(r) in dispatched:
                why = f"calls {r['targetQualname']} (dispatch: {r['via']})"
            else:
                why = f"{'calls' if r['kind'] == 'call' else 'uses'} {n.qualname} ({r['binding']}: {r.get('via') or 'name match'})"
            owner = self.enclosing(path, str(r.get("caller") or ""))
            if owner is None:  # module level, or an import line: the lines around it
                line = int(r["startLine"])
                tier = RISK if bound and self.other_package(path, n.path) else IMPLEMENTATION
                out.append(
                    Candidate(
                        tier,
                        distance,
                        role,
                        path,
                        max(1, line - CALLER_CONTEXT_LINES),
                        line + CALLER_CONTEXT_LINES,
                        str(r.get("caller") or "<module>"),
                        why,
                        str(r["origin"]),
                    )
                )
                continue
            if owner["symbol_id"] in self.seen:
                continue
            m = self.node(owner, distance, role, why)
            self.seen[m.symbol_id] = m
            reached.append(m)
            risky = bound and (self.other_package(path, n.path) or m.exported)
            out.append(self.definition(RISK if risky and role == "caller" else IMPLEMENTATION, m))
            if m.exported and bound and distance == 1 and role == "caller":
                out.append(self.contract(m, f"exported, and {why}"))
        return reached

    def callees(self, n: Node, distance: int, out: list[Candidate]) -> list[Node]:
        reached: list[Node] = []
        for e in self.a.rows_now("edges", n.path):
            if e["source"] != n.qualname or e["kind"] == "import" or e["kind"] in FACTS:
                continue
            link = self.a.linker.link(
                e["binding"] or "candidate",
                e["via"] or "",
                e["resolved_path"],
                e["target_qualname"],
                called=e["target"] == RETURNED,
                read=e["kind"] == "use",
            )
            if link.symbol is None or link.symbol["symbol_id"] in self.seen:
                continue
            row = link.symbol
            m = self.node(row, distance, "callee", f"{n.qualname} {e['kind']}s it ({link.via})")
            self.seen[m.symbol_id] = m
            reached.append(m)
            if m.exported and distance == 1:
                out.append(self.contract(m, f"exported, used by {n.qualname}"))
            out.append(self.definition(IMPLEMENTATION, m))
            if len(reached) >= MAX_NEIGHBOURS:
                break
        return reached

    def contract(self, m: Node, why: str) -> Candidate:
        c = self.definition(CONTRACT, m)
        c.form, c.why, c.role = "summary", why, "contract"
        return c

    def enclosing(self, path: str, qualname: str) -> dict[str, Any] | None:
        if not qualname:
            return None
        rows = [r for r in self.a.rows_now("symbols", path) if r["qualname"] == qualname]
        return min(rows, key=lambda r: r["start_line"]) if rows else None

    def other_package(self, a: str, b: str) -> bool:
        return self.package_dir(a) != self.package_dir(b)

    def package_dir(self, path: str) -> str:
        """The nearest folder above ``path`` holding a package manifest
        (the indexer's configuration patterns), else its top folder."""
        paths = self.paths()
        d = posixpath.dirname(path)
        while True:
            if any(p in paths for p in self.configs_in(d)):
                return d
            if not d:
                return path.split("/", 1)[0] if "/" in path else ""
            d = posixpath.dirname(d)

    def paths(self) -> frozenset[str]:
        return worktree_index(self.a.repo, self.a.wt, self.a.config.include_paths)[1].paths

    def configs_in(self, folder: str) -> list[str]:
        found = self._configs.get(folder)
        if found is None:
            found = self._configs[folder] = [
                p
                for p in self._by_dir().get(folder, [])
                if matches_any(posixpath.basename(p), self.a.config.rebuild_patterns)
            ]
        return found

    def _by_dir(self) -> dict[str, list[str]]:
        if self._dirs is None:
            self._dirs = {}
            for p in self.paths():
                self._dirs.setdefault(posixpath.dirname(p), []).append(p)
        return self._dirs

    def config(self, targets: list[Node], files: list[str]) -> list[Candidate]:
        out = []
        seen: set[str] = set()
        for path in [*(n.path for n in targets), *files]:
            folder = self.package_dir(path)
            for c in sorted(self.configs_in(folder)):
                if c not in seen:
                    seen.add(c)
                    out.append(
                        Candidate(
                            CONFIG,
                            1,
                            "config",
                            c,
                            1,
                            CONFIG_HEAD_LINES,
                            c,
                            f"configuration of {folder or 'the repository'}",
                            "source",
                        )
                    )
        return out

    def history(self, targets: list[Node], files: list[str]) -> list[Candidate]:
        """The last commit subjects that changed each target's file."""
        repo = self.a.repo
        head = repo.head.peel(pygit2.Commit) if not repo.head_is_unborn else None
        out = []
        for path in dict.fromkeys([*(n.path for n in targets), *files]):
            lines: list[str] = []
            for i, commit in enumerate(
                repo.walk(head.id, pygit2.enums.SortMode.TIME) if head else []
            ):
                if i >= HISTORY_WALK or len(lines) >= HISTORY_COMMITS:
                    break
                now = tree_entry(commit.tree, path)
                before = tree_entry(commit.parents[0].tree, path) if commit.parents else None
                if now != before:
                    lines.append(
                        f"{str(commit.id)[:12]} {commit.message.splitlines()[0] if commit.message else ''}"
                    )
            if lines:
                text = "\n".join(lines)
                out.append(
                    Candidate(
                        HISTORY,
                        1,
                        "history",
                        path,
                        0,
                        0,
                        path,
                        "recent commits to the file",
                        "source",
                        text=text,
                        form="history",
                    )
                )
        return out


def _one_line(signature: str, width: int = 72) -> str:
    text = " ".join(signature.split())
    return text if len(text) <= width else text[: width - 3] + "..."
