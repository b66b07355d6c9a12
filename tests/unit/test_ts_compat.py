"""indexer/ts_compat.py: py-tree-sitter's read callback keeps a reference to
every chunk it returns. When the first test fails, the pinned binding no
longer leaks: ts_compat.py and its call in extract.parse can go."""

from __future__ import annotations

import sys
from importlib.metadata import version

from freshindex.indexer import ts_compat
from freshindex.indexer.extract import parse


def test_the_pinned_binding_still_keeps_a_reference_per_chunk() -> None:
    assert ts_compat.refs_kept_per_chunk() == 1, (
        f"py-tree-sitter {version('tree-sitter')} no longer leaks read-callback chunks: "
        "remove freshindex/indexer/ts_compat.py"
    )


def test_a_parse_gives_its_chunks_back() -> None:
    data = bytes(bytearray(b"def f():\n    return 1\n" * 10))  # one chunk, nobody else's
    before = sys.getrefcount(data)
    for _ in range(3):
        parse("python", data)
    assert sys.getrefcount(data) == before
