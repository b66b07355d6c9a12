"""Byte spans a test guards, asked for the innermost one around an offset
(narrow_python.py's ``isinstance``, narrow_js.py's ``instanceof``).

A file may hold thousands of tests on one name (generated code, or a
hostile input); a use looks at the spans that start before it, nearest
first, and at most ``LOOK_BACK`` of them, so each answer costs a binary
search and a bounded scan rather than a pass over every test.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Generic, TypeVar

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
        self._spans.append((start, end, what))
        self._starts = None

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
