"""Value chains: what a claim names when it reaches a definition through a value.

A plain claim is a qualname in a file, ``("pkg/models.py", "Model.save")``.
A *chain* adds the steps a value takes on the way: ``()`` is "the value of
calling it" and ``.name`` "its attribute". Qualnames never hold a
parenthesis, so the two cannot be confused:

- ``make().run``: the ``run`` of what ``make`` returns;
- ``Service().client.send``: the ``send`` of what an instance of ``Service``
  holds in ``client`` (set by ``self.client = ...`` in any of its methods);
- ``Pool.__enter__()``: what a ``with Pool(...) as p`` binds ``p`` to;
- ``Service().users.[]``: an element of what ``Service`` instances hold in
  ``users``, annotated ``list[User]`` (``.[i]``: an item, ``users[k]``);
- ``Repo.open().?``: what Rust's ``Repo::open()?`` gives of the ``Result``
  it returns.

The Python binder (indexer/bind_python.py) writes chains in ``target_qualname``
and, as rows of kind ``value``, what each *holder* may hold: a function's
return (holder ``make()``), an attribute of a class's instances (holder
``Service.client``), a module-level name (holder ``CLIENT``). The linker
(freshindex/query/link.py) walks a chain over other files' holders when the
index is read, bounded in depth, so an edit still rewrites only its own
file's rows.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

# a syntax node, for unwind(): this module reads no tree itself
Node = TypeVar("Node")

CALL = "()"
# the member a value's own call is filed under: Python's `__call__`, and the
# call signature of a TypeScript interface or type (`{ (url: string): Res }`)
CALLED_ITSELF = "__call__"
# the holder of an extension's fact: `extends Repo` holds the C# extension
# method or Kotlin extension function that extends Repo (query/link.py)
EXTENDS = "extends "
# a holder's value of a builtin type (`self.lines = []`): the value row's
# target is `builtin list`, and a method called on it is the platform's
BUILTIN = "builtin "
# "an element of" (what iterating gives) and "an item of" (what subscripting
# gives): steps after a holder annotated as a container (`users: list[User]`)
ELEMENT = "[]"
ITEM = "[i]"
# what Rust's `?`, `.unwrap()` or `.expect()` gives of a function's
# `Result<T, E>` or `Option<T>`: a step after its call (`open().?`)
UNWRAP = "?"
CONTENTS = (ELEMENT, ITEM, UNWRAP)
# methods whose call gives an item of the mapping they are called on
# (`by_name.get(k)`, as `by_name[k]`), and the one whose result's elements are
ITEM_GETTERS = frozenset({"get", "pop", "setdefault"})
ITEMS_VIEW = "values"
# "the n-th of" a tuple (`a, b = pair()`, `pair()[1]`): a step after a holder
# whose value is a literal tuple or is annotated `tuple[A, B]` (holder
# `pair().[1]`); where a holder has no such position, its item (`.[i]`)
POSITIONS = 8  # the first this many positions of a tuple are followed
_POSITION = re.compile(r"\[[0-9]\]")

# a chain with more steps than this is not followed: the rows stay candidates
MAX_STEPS = 12

_TOKEN = re.compile(r"\(\)|[^.()]+")


def one_line(text: str, limit: int = 40) -> str:
    """Source text as a via shows it: one line, at most ``limit`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def steps(chain: str) -> list[str]:
    """``"make().run"`` -> ``["make", "()", "run"]``; [] for a malformed chain."""
    out = _TOKEN.findall(chain)
    return out if "".join(_joined(out)) == chain else []


def _joined(tokens: list[str]) -> list[str]:
    out: list[str] = []
    for i, t in enumerate(tokens):
        if i and t != CALL:
            out.append(".")
        out.append(t)
    return out


def is_chain(qualname: str) -> bool:
    return (
        CALL in qualname
        or ELEMENT in qualname
        or ITEM in qualname
        or (".[" in qualname and _POSITION.search(qualname) is not None)
    )


def is_contents(token: str) -> bool:
    """Whether a chain's step reads its value's contents (``[]``, ``[i]``,
    ``?``, a position ``[1]``)."""
    return token in CONTENTS or _POSITION.fullmatch(token) is not None


def index_of(token: str) -> int | None:
    """The n of a position step (``[1]``: 1); None for any other step."""
    return int(token[1]) if _POSITION.fullmatch(token) else None


def position(chain: str, n: int) -> str | None:
    """The chain of the ``n``-th of ``chain``'s tuple (None: of a module, or
    past the positions followed)."""
    return f"{chain}.[{n}]" if chain and 0 <= n < POSITIONS else None


def attr(chain: str, name: str) -> str:
    """The chain of attribute ``name`` of ``chain`` ("" is a module: its name)."""
    return f"{chain}.{name}" if chain else name


def call(chain: str) -> str | None:
    """The chain of calling ``chain``'s value (None: a module is not callable)."""
    return chain + CALL if chain else None


def element(chain: str) -> str | None:
    """The chain of an element of ``chain``'s value (None: of a module)."""
    return f"{chain}.{ELEMENT}" if chain else None


def item(chain: str) -> str | None:
    """The chain of an item of ``chain``'s value (None: of a module)."""
    return f"{chain}.{ITEM}" if chain else None


def length(chain: str) -> int:
    return chain.count(".") + chain.count(CALL) + 1


def returned_by(owner: str | None, *methods: str) -> str | None:
    """The chain of what ``owner``'s ``method`` returns (``Repo.open()``), and
    of each further method called on that in turn (``Builder.url().build()``);
    ``owner`` itself for no method. None without an owner, or once the chain
    is ``MAX_STEPS`` long: `var b = a.next()` a thousand times would build
    strings quadratic in the count."""
    for method in methods:
        if not owner or length(owner) >= MAX_STEPS:
            return None
        owner = f"{owner}.{method}{CALL}"
    return owner


def member_of(owner: str | None, name: str) -> str | None:
    """The chain of the member ``name`` of what ``owner`` names: of an
    instance of a type (``Config().WriteTo``), or of what a chain holds
    (``Config.Make().WriteTo``); None without an owner, or once the chain is
    ``MAX_STEPS`` long."""
    if not owner or length(owner) >= MAX_STEPS:
        return None
    return f"{owner}.{name}" if CALL in owner else f"{owner}{CALL}.{name}"


def holder_of_return(qualname: str) -> str:
    """The holder key of what a function or method returns."""
    return qualname + CALL


def holder_of_enter(qualname: str) -> str:
    """The holder key of what ``with qualname(...) as x`` binds ``x`` to, for a
    function that is a context manager (``@contextmanager``): what it yields."""
    return qualname + CALL + ".__enter__" + CALL


# characters of a receiver a `via` spells out (chains.spelled)
SPELLED_MAX = 80


def spelled(receiver: str) -> str:
    """A receiver as written, on one line (``self`` and ``.cmd`` on two
    lines are ``self.cmd``); a long one with its calls' arguments left out
    (``new Builder().url(…).build()``) and, still too long, its last steps,
    for a ``via`` to stay readable."""
    flat = " ".join(receiver.split())
    for step in (".", "->", "::", "?."):  # `$b\n  ->port()`, `r\n  .port()`
        flat = flat.replace(f" {step}", step).replace(f"{step} ", step)
    if len(flat) <= SPELLED_MAX:
        return flat
    out: list[str] = []
    depth, argued = 0, False
    for ch in flat:
        if ch == "(":
            depth += 1
            if depth == 1:
                out.append("(")
                argued = False
        elif ch == ")" and depth:
            depth -= 1
            if depth == 0:
                out.append("…)" if argued else ")")
        elif depth == 0:
            out.append(ch)
        else:
            argued = True
    short = "".join(out)
    if len(short) <= SPELLED_MAX:
        return short
    cut = short.find(".", len(short) - SPELLED_MAX)
    return "…" + short[cut:] if cut >= 0 else "…" + short[-SPELLED_MAX:]


def unwind(
    call: Node, step: Callable[[Node], tuple[Node | None, str] | None]
) -> tuple[Node | None, list[str]] | None:
    """The start of a chain of calls and the methods called on it, in the
    order they run (``new B().url(u).build()``: ``new B()``, [url, build]).
    ``step(node)`` gives, for a call of the chain, its receiver (None for a
    call with none, ``make()``) and its method's name ("" for a node that
    only wraps one, as parentheses do); None when ``node`` starts the chain.
    None past MAX_STEPS methods. A loop, not a recursion: every binder's
    chains go through here, and a chain may be thousands of calls long."""
    methods: list[str] = []
    node: Node | None = call
    for _ in range(4 * MAX_STEPS):  # methods, and the parentheses around them
        if node is None or (part := step(node)) is None:
            return node, methods[::-1]
        node, name = part
        if name:
            if len(methods) >= MAX_STEPS:
                return None
            methods.append(name)
    return None
