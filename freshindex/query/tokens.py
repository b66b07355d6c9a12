"""Counting tokens for a context budget, pluggably.

The default is an estimate, and says so: about 4 bytes of source a token,
rounded up per fragment (BPE tokenizers of current models land between 3
and 5 on code). A caller with a real tokenizer plugs it in as
``module:function`` (``--tokenizer``): a function of a string that returns
its token count. freshindex ships none, so nothing is downloaded at run time.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from freshindex.core.exceptions import BadInput

BYTES_PER_TOKEN = 4


@dataclass(frozen=True)
class TokenCounter:
    name: str
    count: Callable[[str], int]


def _estimate(text: str) -> int:
    return -(-len(text.encode("utf-8")) // BYTES_PER_TOKEN)


DEFAULT_COUNTER = TokenCounter(f"estimate: {BYTES_PER_TOKEN} bytes a token", _estimate)


def load_counter(spec: str | None) -> TokenCounter:
    """``module:function`` -> a counter; None -> the estimate."""
    if not spec:
        return DEFAULT_COUNTER
    module, sep, attr = spec.partition(":")
    if not sep or not module or not attr:
        raise BadInput(f"--tokenizer takes module:function, not {spec!r}")
    try:
        fn = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as err:
        raise BadInput(f"cannot load tokenizer {spec}: {err}") from err
    if not callable(fn):
        raise BadInput(f"tokenizer {spec} is not callable")

    def count(text: str) -> int:
        n = fn(text)
        if not isinstance(n, int) or n < 0:
            raise BadInput(f"tokenizer {spec} returned {n!r}, not a token count")
        return n

    return TokenCounter(spec, count)
