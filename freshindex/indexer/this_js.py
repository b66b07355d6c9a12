"""``this`` in a JavaScript/TypeScript object literal's method: the object.

``const api = { list() {...}, run() { return this.list(); } }``: ``this.list``
in ``run`` is ``api.list``, as ``this.m()`` in a class is the class's ``m``.
Vue's Options API spreads one component over nested objects:
``export default { methods: { load() { this.save(); }, save() {} },
computed: { total() { return this.load(); } }, mounted() { this.load(); } }``,
and ``this`` in each of those is the component, so the methods of the objects
under ``methods`` and ``computed`` count as the outer object's members, and
a watcher's (under ``watch``) or a computed property's ``get()`` sees them.

An arrow function's ``this`` is the one around it, so an arrow written as an
object's property (``go: () => this.list()``) is not a method here; an arrow
inside a method keeps the method's ``this``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

import tree_sitter as ts

# the keys of a Vue component's options whose methods share the component's
# `this`; a watcher is named after what it watches (`watch: { value(v) {} }`
# and `this.value` is the prop), so its names are none of the component's
MEMBER_OPTIONS = frozenset({"methods", "computed"})
COMPONENT_OPTIONS = MEMBER_OPTIONS | {"watch"}
_METHOD_VALUES = ("function_expression", "function", "generator_function")


class Method(Protocol):
    """What this module reads of a definition (extract's _Def)."""

    kind: str
    node: ts.Node
    name: str

    @property
    def qualname(self) -> str: ...


def _object_of(m: Method) -> ts.Node | None:
    """The object literal ``m`` is a method of (``list() {}`` or ``go:
    function () {}``); None for a class's method, an arrow property, or
    anything else."""
    node = m.node
    if node.type == "pair":
        value = node.child_by_field_name("value")
        if value is None or value.type not in _METHOD_VALUES:
            return None
    elif node.type != "method_definition":
        return None
    holder = node.parent
    return holder if holder is not None and holder.type == "object" else None


def _key(pair: ts.Node | None) -> str | None:
    """The key of a ``key: value`` pair inside an object literal, else None."""
    if pair is None or pair.type != "pair" or pair.parent is None:
        return None
    key = pair.child_by_field_name("key")
    return key.text.decode("utf-8", "replace") if key is not None and key.text else None


def _component(obj: ts.Node) -> tuple[ts.Node, bool]:
    """The object whose ``this`` a method of ``obj`` has, and whether the
    method's name is one of that object's members: ``obj`` itself, or the
    component around it when ``obj`` is its ``methods: {...}`` (Vue), or a
    computed property's ``{ get() {}, set(v) {} }``."""
    pair = obj.parent
    option = _key(pair)
    if option in COMPONENT_OPTIONS and pair is not None and pair.parent is not None:
        return pair.parent, option in MEMBER_OPTIONS
    computed = pair.parent.parent if pair is not None and pair.parent is not None else None
    if option is not None and _key(computed) == "computed" and computed is not None:
        return computed.parent or obj, False  # `this` in a getter is the component
    return obj, True


class ObjectMethods:
    """The object-literal methods of one file, grouped by the object their
    ``this`` is; built when a file's first ``this.m`` in such a method asks."""

    def __init__(self, defs: Iterable[Method]):
        self._group: dict[int, int] = {}  # a method's start byte -> its object's
        self._names: dict[int, dict[str, str | None]] = {}  # object -> name -> qualname
        for d in defs:
            if d.kind != "method" or d.node.type not in ("pair", "method_definition"):
                continue
            obj = _object_of(d)
            if obj is None:
                continue
            component, named = _component(obj)
            key = component.start_byte
            self._group[d.node.start_byte] = key
            names = self._names.setdefault(key, {})
            if named:  # two of one name (a getter and its setter): not one to bind to
                names[d.name] = d.qualname if d.name not in names else None

    def member(self, within: Method, name: str) -> str | None:
        """The qualname of the method ``name`` of the object whose ``this``
        the method ``within`` has; None if it has none of that name (or two),
        or ``within`` is no object literal's method."""
        key = self._group.get(within.node.start_byte)
        return None if key is None else self._names[key].get(name)
