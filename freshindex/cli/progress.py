"""The progress bar of build and update on a terminal (rich): shards done of
N, files indexed, table MB written, elapsed time and ETA, then the
validation and publish steps. No bar without a TTY or with --json; the flow
run's artifact keeps the numbers either way. rich is imported only when a
bar is drawn (every command imports this module)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any


class Bar:
    """A flows.progress listener drawing one rich bar on stderr."""

    def __init__(self, progress: Any) -> None:
        self.progress = progress
        self.task: Any = None
        self.files = 0
        self.bytes = 0

    def shards(self, total: int) -> None:
        self.task = self.progress.add_task("shards", total=total, files=0, mb=0.0)

    def shard_done(self, files: int, table_bytes: int) -> None:
        self.files += files
        self.bytes += table_bytes
        if self.task is not None:
            self.progress.update(self.task, advance=1, files=self.files, mb=self.bytes / 1e6)

    def step(self, name: str) -> None:
        if self.task is not None:
            self.progress.update(self.task, description=name)


@contextlib.contextmanager
def progress_bar(enabled: bool) -> Iterator[None]:
    """Show the bar while the block runs a flow, when ``enabled`` and stderr
    is a terminal."""
    if not enabled or not sys.stderr.isatty():
        yield
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from freshindex.flows.progress import listening

    progress = Progress(
        TextColumn("{task.description:<10}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[files]:,} files, {task.fields[mb]:.1f} MB written"),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    with progress, listening(Bar(progress)):
        yield
