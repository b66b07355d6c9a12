"""Context packages: what an agent should read about a target, within a budget.

As the reference article specifies:

1. **Targets**: a symbol (any form ``refs`` accepts), a file, or the
   changes in progress (``changed``: the worktree's uncommitted changes, plus
   the commits since ``since``), narrowed to the definitions the changed
   lines fall in.
2. **Expansion** over the reference graph by dependency distance, through
   *bound* references (query/link.py): callers, callees, tests that call or
   import the target, the configuration files of the target's package, and
   the last commit subjects touching the target's file (pygit2). A target
   with no bound callers gets its name-matched candidates, labelled so.
3. **Priority**: targets; public contracts (signatures and summaries of the
   exported definitions the target uses or is used by); high-risk callers
   (from another package, or exported themselves); implementations and tests
   by distance; configuration; history last. A body goes in when it fits,
   otherwise its summary (indexer/summary.py) stands in; what is left out is
   listed with the reason.
4. **Proof per fragment**: path, line span, the blob OID of the bytes it was
   cut from, and its origin (``index``, ``overlay``, ``source``). Text is
   read from the worktree now; a file whose bytes are not the ones its rows
   were computed from is re-parsed and the definition found again by name,
   or the fragment is dropped with the reason: never sliced from stale lines.

Tokens are counted by a pluggable counter (query/tokens.py); the default is
an estimate of 4 bytes a token, and the package says so.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass, field
from typing import Any

import pygit2

from freshindex.core.exceptions import BadInput
from freshindex.indexer.config import matches_any
from freshindex.indexer.document import SNIFF_BYTES, classify
from freshindex.indexer.extract import ParseBudgetExceeded, extract
from freshindex.query import references
from freshindex.query.answer import Answerer
from freshindex.query.freshness import Freshness
from freshindex.query.guard import WorktreeGuard
from freshindex.query.overlay import worktree_index
from freshindex.query.tokens import DEFAULT_COUNTER, TokenCounter

CALLER_CONTEXT_LINES = 3
MAX_DISTANCE = 2
MAX_NEIGHBOURS = 40  # callers or callees walked per definition
HISTORY_COMMITS = 3
CONFIG_HEAD_LINES = 40  # a package manifest's head: name, dependencies, entry points
HISTORY_WALK = 400  # commits looked at for the history notes

# tiers, in the order the budget is filled
TARGET, CONTRACT, RISK, IMPLEMENTATION, CONFIG, HISTORY = range(6)
TIER_NAMES = ("target", "contract", "high-risk", "implementation", "config", "history")


@dataclass
class Node:
    """A definition reached by the walk."""

    symbol_id: str
    path: str
    qualname: str
    kind: str
    start_line: int
    end_line: int
    exported: bool
    origin: str
    distance: int
    role: str  # target | caller | callee | test | candidate
    why: str


@dataclass
class Candidate:
    tier: int
    distance: int
    role: str
    path: str
    start_line: int
    end_line: int
    name: str
    why: str
    origin: str
    node: Node | None = None  # a definition: its summary can stand in
    text: str | None = None  # given text (history, a contract's summary)
    form: str = "body"


@dataclass
class Package:
    items: list[dict[str, Any]] = field(default_factory=list)
    left_out: list[dict[str, Any]] = field(default_factory=list)
    used: int = 0


def build(
    answerer: Answerer,
    target: str | None,
    budget_tokens: int,
    changed: bool = False,
    since: str | None = None,
    counter: TokenCounter = DEFAULT_COUNTER,
) -> dict[str, Any]:
    if budget_tokens < 1:
        raise BadInput("the budget must be at least one token")
    walk = _Walk(answerer)
    files: list[str] = []
    if changed or since:
        targets, files = walk.changed_targets(since)
    elif target and _is_path(target, answerer.guard):
        rel = answerer.guard.relative(target)
        if not answerer.guard.path(rel).is_file():
            raise BadInput(f"{target!r} is not a file in the worktree")
        files = [rel]
        targets = walk.file_targets(rel)
    elif target:
        targets = [
            walk.node(d, 0, "target", "the definition asked for")
            for d in references.definitions(answerer, target)
        ]
        if not targets and answerer.freshness in (Freshness.EXACT, Freshness.OVERLAY):
            # proven absent: an empty package would read as "nothing depends on it"
            raise BadInput(f"no definition named {target!r} and no such file in the worktree")
    else:
        raise BadInput("name a target: a symbol, a file, or --changed")
    candidates = walk.expand(targets, files)
    package = _fill(answerer, candidates, budget_tokens, counter)
    return {
        "targets": [
            {"path": n.path, "name": n.qualname, "kind": n.kind, "symbolId": n.symbol_id}
            for n in targets
        ],
        "items": package.items,
        "results": package.items,  # every query answer has `results` (docs/contract.md)
        "leftOut": package.left_out,
        "omitted": len(package.left_out),
        "budgetTokens": budget_tokens,
        "usedTokens": package.used,
        "tokenizer": counter.name,
    }


class _Walk:
    def __init__(self, answerer: Answerer):
        self.a = answerer
        self.seen: dict[str, Node] = {}
        self._configs: dict[str, list[str]] = {}
        self._dirs: dict[str, list[str]] | None = None

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
            if patch is None or patch.delta.status == pygit2.enums.DeltaStatus.DELETED:
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
        for e in sorted(rows, key=lambda e: (not _is_test(str(e["path"])), e["path"])):
            path = str(e["path"])
            if path in seen or len(seen) > MAX_NEIGHBOURS:
                continue
            seen.add(path)
            test = _is_test(path)
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
        found = references.references(self.a, None, n.symbol_id)
        rows = found["bound"] or (found["candidates"] if n.role == "target" else [])
        reached: list[Node] = []
        for r in rows[:MAX_NEIGHBOURS]:
            path = str(r["path"])
            bound = r["binding"] == "bound"
            role = "test" if _is_test(path) else ("caller" if bound else "candidate")
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
            if e["source"] != n.qualname or e["kind"] == "import":
                continue
            link = self.a.linker.link(
                e["binding"] or "candidate",
                e["via"] or "",
                e["resolved_path"],
                e["target_qualname"],
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
        return worktree_index(self.a.repo, self.a.wt)[1].paths

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
                now = _entry(commit.tree, path)
                before = _entry(commit.parents[0].tree, path) if commit.parents else None
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


def _entry(tree: pygit2.Tree, path: str) -> str | None:
    try:
        return str(tree[path].id)
    except KeyError:
        return None


def _fill(
    answerer: Answerer, candidates: list[Candidate], budget_tokens: int, counter: TokenCounter
) -> Package:
    package = Package()
    files: dict[str, tuple[list[str], str, bytes] | None] = {}
    placed: set[tuple[str, str]] = set()
    order = sorted(enumerate(candidates), key=lambda ic: (ic[1].tier, ic[1].distance, ic[0]))
    for _i, c in order:
        key = (c.path, f"{c.name}:{c.form}:{c.start_line}")
        if key in placed:
            continue
        placed.add(key)
        if c.path not in files:
            files[c.path] = _read(answerer.guard, c.path)
        read = files[c.path]
        if c.form == "history":  # about the file whose bytes these are
            blob_now = read[1] if read else None
            _place(package, c, c.text or "", 0, 0, blob_now, budget_tokens, counter, "history")
            continue
        if read is None:
            package.left_out.append(
                _gone(c, "the file cannot be read now (deleted, refused or unreadable)")
            )
            continue
        lines, blob, data = read
        span = _anchor(answerer, c, blob, data)
        if isinstance(span, str):
            package.left_out.append(_gone(c, span))
            continue
        start, end = span[0], min(span[1], len(lines))
        if c.form == "summary":
            text = _summary_text(answerer, c)
            _place(package, c, text, start, end, blob, budget_tokens, counter, "summary")
            continue
        body = "\n".join(lines[start - 1 : end])
        form = "body" if c.node else "lines"
        # a definition whose body does not fit is given its summary instead
        fallback = c.node is not None
        fitted = _place(package, c, body, start, end, blob, budget_tokens, counter, form, fallback)
        if not fitted and fallback:
            text = _summary_text(answerer, c)
            _place(
                package,
                c,
                text,
                start,
                end,
                blob,
                budget_tokens,
                counter,
                "summary",
                note="its body did not fit",
            )
    return package


def _place(
    package: Package,
    c: Candidate,
    text: str,
    start: int,
    end: int,
    blob: str | None,
    budget: int,
    counter: TokenCounter,
    form: str,
    quiet: bool = False,
    note: str = "",
) -> bool:
    """Place a fragment if it fits; else list it as left out (unless
    ``quiet``: the caller tries a smaller form). Whether it was placed."""
    tokens = counter.count(text)
    if package.used + tokens > budget:
        if not quiet:
            package.left_out.append(_gone(c, "over budget"))
        return False
    package.used += tokens
    last = text.rsplit("\n", 1)[-1] if form in ("body", "lines") else ""
    item: dict[str, Any] = {
        # a target definition keeps the role name it always had
        "role": "definition" if c.role == "target" and c.node is not None else c.role,
        # the contract's result fields (docs/contract.md), so `results` is the items
        "kind": c.node.kind if c.node is not None else c.role,
        "startCol": 0,
        "endCol": len(last.encode("utf-8")),
        "tier": TIER_NAMES[c.tier],
        "distance": c.distance,
        "path": c.path,
        "startLine": start,
        "endLine": end,
        "name": c.name,
        "why": c.why + (f"; summary: {note}" if note else ""),
        "form": form,
        "origin": c.origin if form != "history" else "source",
        "blob": blob,
        "text": text,
        "tokens": tokens,
    }
    if c.node is not None:
        item["symbolId"] = c.node.symbol_id
    package.items.append(item)
    return True


def _gone(c: Candidate, reason: str) -> dict[str, Any]:
    return {
        "role": c.role,
        "tier": TIER_NAMES[c.tier],
        "path": c.path,
        "name": c.name,
        "reason": reason,
    }


def _read(guard: WorktreeGuard, path: str) -> tuple[list[str], str, bytes] | None:
    """The file's lines as they are now, its blob OID and bytes; None when
    it may not be read (query/guard.py) or cannot be."""
    if guard.refusal(path) is not None:
        return None
    try:
        data = guard.path(path).read_bytes()
    except OSError:
        return None
    return data.decode("utf-8", errors="replace").splitlines(), str(pygit2.hash(data)), data


def _anchor(answerer: Answerer, c: Candidate, blob_now: str, data: bytes) -> tuple[int, int] | str:
    """The span to cut, checked against the bytes read now: the span the
    rows give when the file is the one they were computed from, else the
    definition found again in the file as it is now; a reason when neither."""
    if c.origin == "source":
        return (max(1, c.start_line), c.end_line)
    expected = _row_blob(answerer, c.path)
    if expected == blob_now:
        return (c.start_line, c.end_line)
    if c.node is None:
        return (
            "the file changed since this answer was computed, and a line has no name to find again"
        )
    language, reason = classify(c.path, 0o100644, len(data), data[:SNIFF_BYTES], answerer.config)
    if reason is not None or language is None:
        return f"the file changed and is no longer indexed ({reason})"
    try:
        rows = extract(c.path, language, data, None, answerer.config.max_parse_work_factor)
    except ParseBudgetExceeded:
        return "the file changed and no longer parses within budget"
    again = [r for r in rows.symbols if r[4] == c.node.qualname and r[5] == c.node.kind]
    if not again:
        return f"the file changed and no longer defines {c.node.qualname}"
    r = min(again, key=lambda r: abs(r[7] - c.start_line))
    return (int(r[7]), int(r[9]))


def _row_blob(answerer: Answerer, path: str) -> str | None:
    if answerer.overlay is not None and path in answerer.overlay.shadowed:
        return next(
            (str(d.get("blob")) for d in answerer.overlay.documents if d["path"] == path), None
        )
    return answerer.version.blobs([path]).get(path)


def _summary_text(answerer: Answerer, c: Candidate) -> str:
    """The signature, first doc paragraph and decorators of a definition, from
    the summaries table (or the overlay's, for a changed file)."""
    node = c.node
    assert node is not None
    rows = [
        s for s in answerer.rows_now("summaries", node.path) if s["symbol_id"] == node.symbol_id
    ]
    if not rows:
        rows = [
            s for s in answerer.rows_now("summaries", node.path) if s["qualname"] == node.qualname
        ]
    if not rows:
        return f"{node.kind} {node.qualname} [lines {node.start_line}-{node.end_line}]"
    s = rows[0]
    lines = [*s["decorators"], s["signature"]]
    if s["doc"]:
        lines.append(f"    {s['doc']}")
    lines.append(f"    [{s['end_line'] - s['start_line'] + 1} lines, {s['bytes']} bytes]")
    return "\n".join(lines)


def _is_path(target: str, guard: WorktreeGuard) -> bool:
    """Whether a target names a file rather than a symbol: symbol names never
    hold a slash, and a dotted name such as `.env` is a file's."""
    if references.parse_target(target) is not None:
        return False
    return (
        "/" in target
        or "\\" in target
        or target.startswith(".")
        or os.path.lexists(os.path.join(guard.root, target))
    )


def _is_test(path: str) -> bool:
    name = os.path.basename(path)
    parts = path.lower().split("/")
    return (
        any(p in ("test", "tests", "testing", "__tests__", "spec") for p in parts[:-1])
        or name.startswith("test_")
        or "_test." in name
        or ".test." in name
        or ".spec." in name
    )


def markdown(doc: dict[str, Any]) -> str:
    """The package as markdown an agent can paste as it is."""
    fence = "```"
    out = [
        f"# Context: {', '.join(t['name'] for t in doc.get('targets', [])) or 'files'}",
        "",
        f"Index `{doc.get('indexCommit') or '-'}` ({doc.get('freshness')}), worktree tree "
        f"`{doc.get('worktreeTree')}`. {doc['usedTokens']} of {doc['budgetTokens']} tokens "
        f"({doc['tokenizer']}).",
        "",
    ]
    for item in doc["items"]:
        where = (
            f"{item['path']}:{item['startLine']}-{item['endLine']}"
            if item["form"] != "history"
            else item["path"]
        )
        blob = f" blob {str(item['blob'])[:12]}" if item.get("blob") else ""
        out += [
            f"## {item['tier']}: {item['name']} ({item['form']})",
            f"`{where}` · {item['origin']}{blob} · {item['why']}",
            "",
            fence,
            item["text"],
            fence,
            "",
        ]
    if doc["leftOut"]:
        out.append("## Left out")
        out += [f"- {g['tier']} {g['name']} ({g['path']}): {g['reason']}" for g in doc["leftOut"]]
    return "\n".join(out) + "\n"
