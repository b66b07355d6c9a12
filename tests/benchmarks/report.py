"""Benchmarks write the tables they print to docs/benchmarks/<name>.md, which
the performance page includes, so the docs show measured output and not
hand-copied figures."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs" / "benchmarks"


class _Tee(io.TextIOBase):
    def __init__(self, *streams: io.TextIOBase) -> None:
        self.streams = streams

    def write(self, text: str) -> int:
        for stream in self.streams:
            stream.write(text)
        return len(text)

    def flush(self) -> None:
        for stream in self.streams:
            stream.flush()


@contextlib.contextmanager
def table_file(name: str) -> Iterator[None]:
    """Print as usual, and keep what was printed as docs/benchmarks/<name>.md
    with one line saying when, on what code and which command."""
    kept = io.StringIO()
    with contextlib.redirect_stdout(_Tee(sys.stdout, kept)):  # type: ignore[arg-type]
        yield
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=DOCS
    ).stdout.strip()
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    argv = " ".join(Path(sys.argv[0]).name.split() + sys.argv[1:])
    DOCS.mkdir(parents=True, exist_ok=True)
    (DOCS / f"{name}.md").write_text(
        kept.getvalue().rstrip() + f"\n\n<small>`{argv}`, {when}, code of {commit}</small>\n"
    )


def timed_build(repo: Path, store: str) -> float:
    """`freshindex build` of ``repo`` into ``store`` with the CLI a user runs;
    the seconds it took, start-up of the workflow engine included."""
    import time

    cli = Path(sys.executable).parent / "freshindex"
    t0 = time.perf_counter()
    subprocess.run(
        [str(cli), "--repo", str(repo), "--store", store, "build"], check=True, capture_output=True
    )
    return time.perf_counter() - t0
