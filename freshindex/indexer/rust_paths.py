"""Rust calls and values written with a module path.

``util::parse()``, ``crate::store::open()``, ``super::helper()`` and
``fs::read()`` name a function of a module, not a method of a type (which
bind_rust.py types: its last path segment is capitalised by Rust's
convention). The path is read as a ``use`` of it would be: a first segment
the file imports (``use crate::util;``) stands for what it imports, and
the module's file is found by indexer/resolve.py (``crate::``, ``self::``,
``super::``, a module the current one declares, another crate of the
tree). A path into the standard library (``std``, ``core``, ``alloc``, or
a name imported from one) is external.

Inside an inline module (``mod tests { ... }``), ``super::`` is the file's
own module: ``super::helper()`` binds to the file's top-level ``helper``;
longer paths there are left alone (they are relative to a module the
resolver cannot see as a file).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from freshindex.indexer.resolve import Resolver
from freshindex.indexer.schema import Binding

_STD = ("std", "core", "alloc")
# a path written with generics or a leading `::` is not read
_SEGMENT_TYPES = ("identifier", "scoped_identifier", "crate", "self", "super")

# (resolved path, qualname, binding, via)
Claim = tuple[str | None, str | None, Binding, str]


def path_claim(
    written: str,
    name: str,
    path: str,
    imports: Mapping[str, tuple[str, str]],
    top_level: Collection[str],
    inline: int,
    resolve: Resolver | None,
) -> Claim | None:
    """What ``written::name`` names from the file ``path``; ``imports``:
    the file's ``use`` bindings (local name -> (module, name)); ``inline``:
    how many inline modules are around the call. None when the path is
    not a module's (a type's, a variable's) or cannot be read."""
    parts = written.split("::")
    head = parts[0]
    if not head or any(p[:1].isupper() for p in parts):
        return None  # `Repo::open`, `io::Error::new`: a type's (bind_rust.py)
    if inline:
        if written == "super" and name in top_level:
            return path, name, Binding.BOUND, "super:: of an inline module: this file's"
        return None
    if written == "self":
        return (path, name, Binding.BOUND, "self:: in this module") if name in top_level else None
    if head in imports:
        module, imported = imports[head]
        parts = [*[p for p in module.split("::") if p], imported, *parts[1:]]
    if parts[0] in _STD:
        return None, None, Binding.EXTERNAL, f"{'::'.join(parts)}, the standard library's"
    spec = "::".join(parts)
    found = resolve("rust", path, spec, name) if resolve is not None else None
    if found is not None and module_file(found, name, spec):
        # a call names a value, and a module is none: `flags::parse()` with
        # `mod parse;` in flags is the function flags defines or re-exports
        # (`pub use parse::parse;`), as Rust keeps modules and values apart
        found = resolve("rust", path, spec, "") if resolve is not None else None
        if found is not None and module_file(found, name, spec):
            return None
    if found is None:
        return None  # another crate's
    return found, name, Binding.BOUND, f"{written}::{name}"


def module_file(found: str, name: str, module: str) -> bool:
    """Whether a path or ``use`` naming ``name`` in ``module`` resolved to
    the file of module ``name`` (``store.rs``, ``store/mod.rs``) rather than
    to the file of ``module``, which defines an item ``name``
    (indexer/resolve.py). ``use parse::parse;`` is the function in parse.rs:
    when the module is called as its item, only ``parse/parse.rs`` (or
    ``parse/parse/mod.rs``) would be a module of that name."""
    last = module.rpartition("::")[2]
    tail = f"/{name}/{name}" if last == name else f"/{name}"
    return f"/{found}".endswith((f"{tail}.rs", f"{tail}/mod.rs"))


def readable(path_node_type: str) -> bool:
    """Whether a scoped name's path is written as module segments only."""
    return path_node_type in _SEGMENT_TYPES
