"""Byte spans a test guards (narrow_python.py's ``isinstance``,
narrow_js.py's ``instanceof``): ``climb`` finds the ``and``s a test is part
of, the languages' modules the statement it guards; ``Guarded`` answers
which span is the innermost around an offset; ``innermost_around`` answers
it for many offsets at once.

A file may hold thousands of tests on one name (generated code, or a
hostile input); a use looks at the spans that start before it, nearest
first, and at most ``LOOK_BACK`` of them, so each answer costs a binary
search and a bounded scan rather than a pass over every test.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from typing import Generic, TypeVar

import tree_sitter as ts

T = TypeVar("T")

# spans starting before an offset looked at for one around it: a span that
# contains the offset is nearly always among the nearest (a branch, the
# rest of a block), and past this many a use stays as it was without the test
LOOK_BACK = 32


class Guarded(Generic[T]):
    def __init__(self) -> None:
        self._spans: list[tuple[int, int, T]] = []
        self._starts: list[int] | None = None

    def add(self, start: int, end: int, what: T) -> None:
        if self._starts is None:
            self._spans.append((start, end, what))
            return
        # asked already (shadows.py reads a file's statements as they are
        # asked about): kept in order, not sorted again at the next question
        i = bisect_right(self._starts, start)
        self._spans.insert(i, (start, end, what))
        self._starts.insert(i, start)

    def innermost(self, at: int) -> T | None:
        """What the span that starts last among those around ``at`` guards."""
        if self._starts is None:
            self._spans.sort(key=lambda span: span[0])
            self._starts = [start for start, _end, _what in self._spans]
        i = bisect_right(self._starts, at) - 1
        for j in range(i, max(i - LOOK_BACK, -1), -1):
            _start, end, what = self._spans[j]
            if at < end:
                return what
        return None


def innermost_around(spans: list[tuple[int, int, T]], offsets: list[int]) -> list[T | None]:
    """What the innermost span around each byte offset holds (None: no span
    holds it), in one pass: ``offsets`` ascending, ``spans`` sorted by start
    with an outer span before an inner one of the same start."""
    out: list[T | None] = []
    stack: list[tuple[int, int, T]] = []
    i = 0
    for offset in offsets:
        while i < len(spans) and spans[i][0] <= offset:
            while stack and stack[-1][1] <= spans[i][0]:
                stack.pop()
            stack.append(spans[i])
            i += 1
        while stack and stack[-1][1] <= offset:
            stack.pop()
        out.append(stack[-1][2] if stack else None)
    return out


def climb(
    test: ts.Node, is_and: Callable[[ts.Node], bool]
) -> tuple[ts.Node, ts.Node | None, list[tuple[int, int]]]:
    """From a test up through the parentheses and the ``and``s it is part of
    (``is_and``: the language's conjunction): the outermost of them, its
    parent (None at the top of the file), and the spans of the operands to
    the test's right in those ``and``s, which the test guards too
    (``isinstance(x, C) and x.m()``). Both grammars name the operands
    ``left`` and ``right``."""
    spans: list[tuple[int, int]] = []
    node, parent = test, test.parent
    while parent is not None:
        if is_and(parent):
            right = parent.child_by_field_name("right")
            if right is not None and right != node:
                spans.append((right.start_byte, right.end_byte))
        elif parent.type != "parenthesized_expression":
            break
        node, parent = parent, parent.parent
    return node, parent, spans
