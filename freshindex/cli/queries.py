"""Commands that answer from the index: status, defs, refs, dump, context."""

from __future__ import annotations

import json
import sys

from freshindex.cli.session import Context, check_failed
from freshindex.core.exceptions import NoPublishedVersion, VerificationFailed


def cmd_status(ctx: Context) -> int:
    problem = None
    doc = None
    try:
        version = ctx.current()
        doc = ctx.answerer(version, parse_now=False).envelope.to_json()
    except NoPublishedVersion:
        version = None
    except VerificationFailed as err:  # what the pointer names does not check out
        version, problem = None, f"current version fails verification: {err}"
    if doc is None:
        from freshindex.query.freshness import basic_envelope
        from freshindex.query.worktree import read_worktree

        doc = basic_envelope(ctx.repo, None, read_worktree(ctx.repo), []).to_json()
        if problem:
            doc["reasons"] = [problem]
    if version is not None:
        from freshindex.ops.versions import record_status

        doc["records"] = record_status(version.store, version.manifest.seq)

    def human() -> None:
        print(f"freshness: {doc['freshness']} ({doc['relation']})")
        print(f"index:     {doc['indexVersion']} @ {doc['indexCommit']}")
        print(f"head:      {doc['headCommit']}  worktree tree {doc['worktreeTree']}")
        for r in doc["reasons"]:
            print(f"  - {r}")

    if getattr(ctx.args, "check", False) and version is not None:
        from freshindex.ops.health import HealthChecker

        doc["health"] = HealthChecker(version.store).check()
    ctx.out.doc(doc, human)
    if doc.get("health") and not doc["health"]["healthy"]:
        check_failed(f"unhealthy: {doc['health']['problems'][0]}")
    return ctx.fresh_exit(doc)


def _query(ctx: Context, kind: str) -> int:
    from freshindex.query.answer import query_doc
    from freshindex.query.answers import document

    args = ctx.args
    doc = document(query_doc(ctx.answerer(), kind, args.name, args.symbol_id))
    results = doc["results"]
    what = args.name or f"--id {args.symbol_id}"

    def human() -> None:
        print(
            f"# {len(results)} {kind} of {what} [{doc['freshness']}] "
            f"index {doc['indexCommit'][:12] if doc['indexCommit'] else '-'}",
            file=sys.stderr,
        )
        for r in doc["reasons"]:
            print(f"#   {r}", file=sys.stderr)
        if kind == "refs":
            _human_refs(doc)
        else:
            for r in results:
                print(
                    f"{r['path']}:{r['startLine']}:{r['startCol'] + 1}\t{r['kind']}\t{r['qualname']}"
                )
        if not results and doc["freshness"] in ("partial", "stale"):
            print(
                f"# no {kind} found, but this index is {doc['freshness']}: the list is incomplete",
                file=sys.stderr,
            )

    ctx.out.doc(doc, human)
    return ctx.fresh_exit(doc)


def _human_refs(doc: dict) -> None:
    """One section per definition (its bound references), then the candidates,
    then what resolved outside the repository: never mixed."""

    def line(r: dict) -> str:
        # one row per line whatever a via holds (it quotes source text)
        via = " ".join(str(r.get("via") or "").split())
        return (
            f"{r['path']}:{r['startLine']}:{r['startCol'] + 1}\t{r['kind']}\t"
            f"{r.get('caller') or '<module>'}\t{via}"
        )

    for g in doc["groups"]:
        d = g["definition"]
        print(f"== {d['qualname']} ({d['kind']}) {d['path']}:{d['startLine']}")
        print(f"-- bound ({len(g['bound'])})")
        for r in g["bound"]:
            print(line(r))
        if g.get("dispatch"):
            print(
                f"-- dispatch ({len(g['dispatch'])}): calls of a method it overrides, "
                "which run it when the receiver is of its class"
            )
            for r in g["dispatch"]:
                print(line(r))
    if doc["candidates"]:
        print(f"-- candidates ({len(doc['candidates'])}): name-matched, not provable")
        for r in doc["candidates"]:
            print(line(r))
    if doc["external"]:
        print(f"-- external ({len(doc['external'])}): resolved outside the repository")
        for r in doc["external"]:
            print(line(r))
    unfollowed = doc.get("unfollowedCalls", 0)
    dispatch = f"{len(doc['dispatch'])} through overridden methods, " if doc.get("dispatch") else ""
    print(
        f"-- {doc.get('boundCount', len(doc['bound']))} bound, {dispatch}"
        f"{doc.get('candidateCount', len(doc['candidates']))} candidates; "
        f"{unfollowed} call(s) of the name the binder could not follow"
    )
    if not doc["bound"] and unfollowed:
        print(
            "-- no bound reference, but calls it could not follow name it: not a proof of no callers"
        )


def cmd_defs(ctx: Context) -> int:
    return _query(ctx, "defs")


def cmd_refs(ctx: Context) -> int:
    return _query(ctx, "refs")


def cmd_dump(ctx: Context) -> int:
    answerer = ctx.answerer()
    env = answerer.envelope.to_json()
    # JSON Lines: the envelope first, then one row a line in canonical order.
    sys.stdout.write(json.dumps({"envelope": env, "table": ctx.args.table}, sort_keys=True) + "\n")
    for row in answerer.dump(ctx.args.table, ids=not ctx.args.no_ids):
        sys.stdout.write(json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n")
    return ctx.fresh_exit(env)


def cmd_context(ctx: Context) -> int:
    from freshindex.query import context as context_pkg
    from freshindex.query.answers import ContextPackage, document
    from freshindex.query.tokens import load_counter

    args = ctx.args
    counter = load_counter(args.tokenizer)
    answerer = ctx.answerer()
    doc = answerer.envelope.to_json()
    doc.update(
        context_pkg.build(answerer, args.target, args.budget, args.changed, args.since, counter)
    )
    doc = document(ContextPackage.model_validate(doc))

    def human() -> None:
        sys.stdout.write(context_pkg.markdown(doc, counter))

    ctx.out.doc(doc, human)
    return ctx.fresh_exit(doc)
