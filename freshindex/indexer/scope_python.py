"""The scopes of one Python file as the binder (indexer/bind_python.py) walks
it, and what the walk leaves behind: a reference site, a name's binding, a
reference waiting for the walk to end. The value flow
(indexer/flow_python.py) reads and fills the same scopes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import tree_sitter as ts

if TYPE_CHECKING:
    from freshindex.indexer.flow_python import Flow

# what a site claims, as indexer/schema.py's Binding spells it
BOUND = "bound"
CANDIDATE = "candidate"
EXTERNAL = "external"


@dataclass(slots=True)
class Site:
    """One reference: where its name is written and what it names."""

    node: ts.Node  # the name as written (its last segment)
    kind: str  # call | use | inherit | import
    module: str = ""  # import spec, for imports and names bound by them
    alias: str = ""  # the local name an import binds, when it differs
    path: str | None = None  # defining file, when the rules know it
    qualname: str | None = None  # definition within ``path`` ("" = the module itself)
    binding: str = CANDIDATE
    via: str = ""  # which rule bound it, in words
    # the name the row is filed under, when it is not the name as written:
    # `a = func; a()` is a reference of `func` (indexer/flow_python.py)
    name: str | None = None
    holder: str = ""  # kind value: what holds the value (indexer/chains.py)


@dataclass(slots=True)
class Name:
    """What a name is bound to in one scope."""

    what: str  # def | local | typed | import | module | var
    qualname: str = ""  # def: its qualname in this file; import: the imported name
    module: str = ""  # import/module: the spec
    path: str | None = None  # import/module: the resolved file
    # typed: a local whose one binding gives its class: the expression
    # naming it (`u: User`, `u = User(...)`), read in type_scope
    type_node: ts.Node | None = None
    type_scope: Scope | None = None


@dataclass(slots=True)
class Scope:
    kind: str  # module | class | function
    qualname: str  # of the definition that owns it ("" for the module)
    parent: Scope | None
    names: dict[str, Name] = field(default_factory=dict)
    declared_global: set[str] = field(default_factory=set)
    declared_nonlocal: set[str] = field(default_factory=set)
    cls: str | None = None  # a method's class qualname (for self/cls/super)
    receiver: str | None = None  # a method's first parameter
    is_classmethod: bool = False  # the receiver is the class, not an instance
    node: ts.Node | None = None
    params: frozenset[str] = frozenset()  # a function's or lambda's parameters
    # every value that flows into a name here, and into a name's literal
    # keys (`d["k"] = f`), evaluated once the walk is over
    flows: dict[str, list[Flow]] = field(default_factory=dict)
    items: dict[str, dict[str, list[Flow]]] = field(default_factory=dict)

    def bind(self, name: str, what: Name) -> None:
        if name in self.declared_nonlocal:
            return  # an enclosing function's name
        if name in self.declared_global and self.parent is not None:
            self.module().names.setdefault(name, Name("var", qualname=name))
            return
        current = self.names.get(name)
        # the first binding seen wins unless it was a local; a local bound
        # twice has no one type
        if current is None:
            self.names[name] = what
        elif current.what in ("local", "typed"):
            self.names[name] = Name("local") if what.what in ("local", "typed") else what

    def module(self) -> Scope:
        s = self
        while s.parent is not None:
            s = s.parent
        return s

    def owner_of(self, name: str) -> Scope:
        """The scope an assignment to ``name`` here binds it in."""
        if name in self.declared_global and self.parent is not None:
            return self.module()
        if name in self.declared_nonlocal:
            s = self.parent
            while s is not None and s.parent is not None:
                if s.kind == "function" and name in s.names:
                    return s
                s = s.parent
        return self

    def flow(self, name: str, flow: Flow) -> None:
        self.owner_of(name).flows.setdefault(name, []).append(flow)


@dataclass(slots=True)
class Pending:
    scope: Scope
    kind: str
    root: ts.Node  # identifier, or a `super()` call
    segments: list[ts.Node]  # attribute names after the root
    # the root is an expression whose value is what is referenced
    # (`make()()`, `d["k"]()`, the `f` of `map(f, xs)`)
    value: bool = False
    via: str = ""
