"""What every command shares: the parsed arguments, the repository, the store,
and the answerer over the current version."""

from __future__ import annotations

import argparse
import os
from typing import Any

from freshindex.cli.output import Output
from freshindex.core.exceptions import CheckFailed, NotFresh


class Context:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.out = Output(args.json)
        self._repo: Any = None

    @property
    def repo(self) -> Any:
        if self._repo is None:
            from freshindex.core.gitrepo import open_repo

            self._repo = open_repo(self.args.repo)
        return self._repo

    def store_uri(self) -> str:
        if self.args.store:
            return str(self.args.store)
        if os.environ.get("FRESHINDEX_STORE"):
            return os.environ["FRESHINDEX_STORE"]
        from freshindex.core.gitrepo import store_default

        return store_default(self.repo)

    def store(self) -> Any:
        from freshindex.storage import open_store

        return open_store(self.store_uri())

    def current(self) -> Any:
        """The current published version (raises when there is none)."""
        from freshindex.catalog.reader import IndexVersion

        return IndexVersion.current(self.store())

    def answerer(self, current: Any = None, parse_now: bool = True) -> Any:
        """The answerer over the base for HEAD (query/bases.py): the current
        version (``current``, else read now) or a published version closer
        to HEAD. With --no-overlay, always the current version."""
        from freshindex.query.evaluation import Bases, evaluate

        current = current or self.current()
        use_overlay = not getattr(self.args, "no_overlay", False)
        version, base = current, None
        if use_overlay:
            version, base = Bases(current.store).select(self.repo, current)
        return evaluate(
            self.repo,
            version,
            use_overlay=use_overlay,
            parse_now=parse_now,
            base=base,
            current=current.manifest.versionId,
        )

    def fresh_exit(self, doc: dict[str, Any]) -> int:
        """0, or NotFresh (exit 3) under --require-fresh when the answer is
        neither exact nor overlay."""
        if getattr(self.args, "require_fresh", False) and doc["freshness"] not in (
            "exact",
            "overlay",
        ):
            raise NotFresh(
                f"index freshness is {doc['freshness']}: {'; '.join(doc['reasons']) or 'unknown'}"
            )
        return 0


def check_failed(message: str) -> None:
    raise CheckFailed(message)
