"""C++ values that reach a class through a pointer the standard library
makes: ``std::unique_ptr<Repo>`` and ``std::shared_ptr<Repo>`` (``p->save()``
is Repo's, ``p.reset()`` the pointer's own), ``std::make_unique<Repo>()``,
and whether a member is written with ``->``. Used by the receivers of
indexer/receivers_cpp.py and by the linker (query/link_c.py)."""

from __future__ import annotations

import re
from collections.abc import Callable

import tree_sitter as ts

# std::unique_ptr<Repo> and std::shared_ptr<Repo>: `p->save()` is Repo's,
# `p.reset()` the pointer's own (these members), `p.get()->save()` Repo's
_SMART = re.compile(r"(?:std::)?(?:unique_ptr|shared_ptr)<([A-Za-z_][\w:]*)\s*(?:,[^<>]*)?>")
SMART_MEMBERS = frozenset(
    {"get", "reset", "release", "swap", "use_count", "unique", "owner_before", "get_deleter"}
)


def pointee(written: str) -> str | None:
    """``Repo`` of ``std::unique_ptr<Repo>`` (or ``shared_ptr``, with or
    without ``std::``, a deleter after); None for any other type."""
    m = _SMART.fullmatch(written)
    return m.group(1) if m else None


def through_pointer(
    written: str, steps: tuple[str, ...], member: str, arrow: bool
) -> tuple[str, tuple[str, ...]]:
    """Past a smart pointer at the head of a receiver: its pointee, with a
    ``get()`` or ``release()`` step (the raw pointer) dropped; the pointer
    itself (``std::unique_ptr<Repo>``, the standard library's) when the call
    is one of its own members, written with ``.``, and no step is left
    (``p.reset()``; ``p->reset()`` is Repo's). ``arrow``: the call's ``->``."""
    element = pointee(written)
    if element is None:
        return written, steps
    if steps and steps[0] in ("get()", "release()"):
        return element, steps[1:]
    if not steps and member in SMART_MEMBERS and not arrow:
        return f"std::{written.removeprefix('std::')}", ()
    return element, steps


def written_arrow(member: ts.Node, text: Callable[[ts.Node], str]) -> bool:
    """Whether a ``field_expression`` is written ``a->b`` (not ``a.b``)."""
    operator = member.child_by_field_name("operator")
    return operator is not None and text(operator) == "->"


# std::make_unique<Repo>(...): a Repo (what `->` reaches)
_MAKERS = frozenset({"make_unique", "make_shared"})


def made(name: ts.Node, text: Callable[[ts.Node], str]) -> str | None:
    """The class ``std::make_unique<Repo>`` and ``make_shared`` make."""
    if name.type != "template_function":
        return None
    called, arguments = name.child_by_field_name("name"), name.child_by_field_name("arguments")
    if called is None or text(called) not in _MAKERS or arguments is None:
        return None
    made = arguments.named_children[0] if arguments.named_children else None
    if made is None or made.type != "type_descriptor":
        return None
    kind = made.child_by_field_name("type")
    if kind is None or kind.type not in ("type_identifier", "qualified_identifier"):
        return None
    return text(kind)
