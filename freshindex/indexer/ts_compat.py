"""The workaround for py-tree-sitter's read-callback reference leak.

py-tree-sitter 0.26.1 keeps one reference to every object a read callback
returns, for good: each parsed file's bytes (a chunk of under 64 kB is the
file itself) stayed in memory for the life of the process. Measured: a
long-running `serve --updates` grew ~0.2 MB per 10-file update, and a Dask
worker would keep every file it parsed across builds. indexer/extract.py
parses through a read callback because only that takes a progress callback
(the parse's work bound).

Upstream: the same binding's callbacks leaked their results elsewhere, the
progress callback's (https://github.com/tree-sitter/py-tree-sitter/issues/483,
fixed by pull request 488) and a callable source's in ``Node.text``
(https://github.com/tree-sitter/py-tree-sitter/issues/464); the read
callback's own leak is in ``tree_sitter/binding/parser.c`` of 0.26.1. The
parser is done with the chunks when parse() returns (a tree of a callable
source keeps the callable, not the chunks), so the kept references are
released then. How many it keeps is measured once per process on a chunk of
our own, so a binding that no longer leaks is left alone; any other count
than 0 or 1 is not understood and left leaking rather than risk freeing a
live object. tests/unit/test_ts_compat.py fails when the pinned binding stops
leaking: then this module can go.
"""

from __future__ import annotations

import ctypes
import functools
import sys

import tree_sitter as ts

from freshindex.indexer.languages import ts_language

_PROBE = b"x = 1\n"


@functools.cache
def refs_kept_per_chunk() -> int:
    """How many references the binding keeps to a chunk a read callback
    returns: 1 on py-tree-sitter 0.26.1, 0 once fixed."""
    chunk = bytes(bytearray(_PROBE))  # a fresh object nobody else holds
    before = sys.getrefcount(chunk)
    ts.Parser(ts_language("python")).parse(
        lambda offset, _point: chunk if offset == 0 else b"", progress_callback=lambda *_: False
    )
    kept = sys.getrefcount(chunk) - before
    return kept if kept in (0, 1) else 0


def release(handed: list[bytes]) -> None:
    """Give back the references the binding kept to ``handed``, the chunks
    one parse's read callback returned, once that parse has returned."""
    if not handed or not refs_kept_per_chunk():
        return
    for chunk in handed:
        ctypes.pythonapi.Py_DecRef(ctypes.py_object(chunk))
