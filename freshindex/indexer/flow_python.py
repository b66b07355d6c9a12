"""What a Python name may hold: the value-flow half of the binder.

Over 400 lines as one concept: recording where values flow (assignments,
arguments) and evaluating them are two ends of the same rules.

The binder (indexer/bind_python.py) walks a file once with Python's scopes and
records, without deciding anything yet, every place a value flows into a name:
assignments of every form, ``for`` targets, ``with ... as``, ``except ... as``,
walrus targets, parameters (their defaults, their annotations, and the
arguments of the calls this file makes to the function), items of literal
containers, and the holders other files can see: what a function returns,
what ``self.x`` is set to in any method, a class attribute, a module-level
name. When the walk is over, a name's values are evaluated lazily, so an
assignment further down the file still counts: the pass is flow-insensitive,
as a call graph must be, and a name assigned two different values gives a row
for each. A value the rules cannot follow gives nothing, and the reference
stays a candidate: never a guess.

A value is a *chain* rooted in a file (indexer/chains.py): ``("pkg/f.py",
"make().run")``. The binder cannot see other files, so a chain that leaves
the file is stored as such and walked by freshindex/query/link.py when the
index is read.

Bounds, so hostile input ends within the parse budget: a name is followed
through at most ``MAX_DEPTH`` other names, gives at most ``MAX_VALUES``
values (past that it is left a candidate: too many to be useful), and a chain
has at most ``chains.MAX_STEPS`` steps.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

import tree_sitter as ts

from freshindex.indexer import chains
from freshindex.indexer.annotations import (
    class_expr,
    class_of_type,
    contained,
    is_callable,
    is_container,
    is_generic,
    union_classes,
)
from freshindex.indexer.scope_python import Pending

if TYPE_CHECKING:
    from freshindex.indexer.guarded import Guarded
    from freshindex.indexer.narrow_python import Narrowing
    from freshindex.indexer.scope_python import Name, Scope

MAX_DEPTH = 8
# builtins whose result is one of the elements they are given (`next(it)`,
# `max(users)`), or one of their arguments (`max(a, b)`)
_PICKERS = frozenset({"next", "max", "min"})
_FUNCTOOLS = frozenset({"functools"})
_NOT_POSITIONAL = frozenset({"keyword_argument", "comment", "list_splat", "dictionary_splat"})
# comprehensions whose iteration gives the values of their body
_ELEMENT_COMPREHENSIONS = ("list_comprehension", "set_comprehension", "generator_expression")
MAX_VALUES = 8
# evaluation steps a file may take, on top of one per byte of source: past
# them nothing more is followed (its references stay candidates). The bounds
# above end every evaluation; this ends a file whose evaluations are many and
# each just inside them, so a shard's time stays in proportion to its bytes
FLOW_STEPS_FLOOR = 200_000
# builtins that call the function they are given: map(f, xs) calls f
CALLING_BUILTINS = frozenset({"map", "filter"})
TYPING_MODULES = frozenset({"typing", "typing_extensions"})
# builtins whose iteration gives the elements of what they are given
PASS_ELEMENTS = frozenset({"sorted", "reversed", "list", "tuple", "set", "frozenset", "iter"})
PROPERTIES = ("property", "cached_property", "functools.cached_property")
CONTEXT_MANAGERS = frozenset(
    {
        "contextmanager", "contextlib.contextmanager",
        "asynccontextmanager", "contextlib.asynccontextmanager",
    }
)  # fmt: skip


# the steps of a name whose annotation says what it contains: a container
# annotation (``items``: ``users: list[User]``) or a splat's (``*args: User``,
# ``**kwargs: User``), with the roles the splat's annotation answers
_SPLATS = {"each": ("element", "item"), "values": ("item",)}
CONTAINERS = ("items", *_SPLATS)


class Value(NamedTuple):
    """A chain rooted in a file, and how the name came to hold it."""

    path: str
    chain: str  # "" is the module ``path`` itself
    how: str


class Flow(NamedTuple):
    """One place a value flows into a name: an expression read in a scope,
    then a step (``enter``: what ``with`` binds; ``instance``: an annotation
    or ``except`` class, whose value is an instance; ``iter``: an element of
    a literal sequence), or a value known outright.

    How it reads in words (a row's ``via``) is made only when a row needs
    it (``ValueFlow.describe``): most flows never reach a row, and making
    every sentence eagerly cost a tenth of extraction."""

    node: ts.Node | None
    scope: Scope | None
    label: str  # the name it flows into (`x`, `self.client`), or the whole sentence
    step: str = ""
    value: Value | None = None
    # from an annotation: where a name or holder has one, its other values
    # are not followed, as a type checker reads it (`self.t: Base = make()`)
    declared: bool = False
    words: str = ""  # where, when not the line: "default", "in Service.__init__"
    verbatim: bool = False  # ``label`` is the whole sentence


class ValueFlow:
    """The evaluation half, mixed into the binder; the binder supplies the
    scope rules (``lookup``) and what a type expression names (``symbol_of``)."""

    path: str
    # a name's values, once evaluated: (scope id, name) -> values
    memo: dict[tuple[int, str], list[Value]]
    text: Callable[[ts.Node], str]
    lookup: Callable[[Scope, str], tuple[Name | None, Scope | None]]
    symbol_of: Callable[[ts.Node, Scope], tuple[str, str, str] | None]
    method_scope: Callable[[Scope], Scope | None]
    # the holders other files can see: (holder, its flow, the node it is named at)
    holders: list[tuple[str, Flow, ts.Node]]
    # qualname -> (its scope, its parameters, is a method), for arguments
    functions: dict[str, tuple[Scope, list[str], bool]]
    # holder -> its flows annotated as a container (`users: list[User]`), made
    # from ``holders`` when first asked
    items_of: dict[str, list[Flow]] | None
    # a comprehension's node id -> its scope, where its element is evaluated
    comprehensions: dict[int, Scope]
    callables: set[str]  # the names a call can reach a function of this file by
    # name -> the spans isinstance tests narrow it in: the test, and its scope
    narrowed: dict[str, Guarded[tuple[Narrowing, Scope]]]
    steps_left: int  # of the file's evaluation budget (FLOW_STEPS_FLOOR)
    # calls made through a value, whose arguments indirect() routes
    through: list[tuple[ts.Node, Scope]]
    # (a decorator, its scope, the qualname of what it decorates, the
    # decorator below it, whose result it is given; None: the definition)
    decorated: list[tuple[ts.Node, Scope, str, ts.Node | None]]
    pending: list[Pending]

    def assign(self, node: ts.Node, scope: Scope) -> None:
        """Record the values an assignment gives its targets (``a = b = f``
        gives both)."""
        left = node.child_by_field_name("left")
        value = node.child_by_field_name("right")
        while value is not None and value.type == "assignment":
            value = value.child_by_field_name("right")
        kind = node.child_by_field_name("type")
        if kind is not None and self.text(kind).rpartition(".")[2] == "TypeAlias":
            kind = None  # `EventDict: TypeAlias = dict[str, Any]`: the value is the type
        annotation = class_expr(kind, self.text)
        if left is None:
            return
        if annotation is not None:  # `client: Client`, dataclass fields included
            declared = not is_generic(kind, self.text)
            self.pair(left, annotation, scope, "instance", declared=declared)
        elif kind is not None and is_container(kind, self.text):  # `users: list[User]`
            self.pair(left, kind, scope, "items", declared=True)
        elif members := union_classes(kind, self.text):  # `node: Object | Alias`
            for member in members:
                self.pair(left, member, scope, "instance")
        elif kind is not None and is_callable(kind, self.text):  # `make: Callable[[], User]`
            self.pair(left, kind, scope, "returns", declared=True)
        elif (
            kind is not None
            and (value is None or value.type == "none")
            and (cls := class_of_type(kind, self.text)) is not None
        ):  # `factory: type[User]`; an assigned class says which (`= Admin`)
            self.pair(left, cls, scope, declared=True)
        if value is not None:
            self.pair(left, value, scope)

    def pair(
        self, target: ts.Node, value: ts.Node, scope: Scope, step: str = "", declared: bool = False
    ) -> None:
        t = target.type
        if t == "identifier":
            name = self.text(target)
            flow = Flow(value, scope, name, step=step, declared=declared)
            scope.flow(name, flow)
            owner = scope.owner_of(name)
            if owner.kind == "module":  # other files read it: `from m import CLIENT`
                self.holders.append((name, flow, target))
            elif owner.kind == "class":
                self.holders.append((f"{owner.qualname}.{name}", flow, target))
        elif t == "attribute":  # self.client = Client(): every instance's client
            holder = self.self_attribute(target, scope)
            method = self.method_scope(scope)
            attr = target.child_by_field_name("attribute")
            if holder is None or method is None or method.is_classmethod or attr is None:
                return
            words = f"in {method.qualname}"
            label = f"self.{self.text(attr)}"
            flow = Flow(value, scope, label, step, declared=declared, words=words)
            self.holders.append((holder, flow, attr))
        elif t == "subscript":  # d["k"] = f
            base, key = target.child_by_field_name("value"), target.child_by_field_name("subscript")
            if base is None or key is None or base.type != "identifier":
                return
            wanted = literal(key, self.text)
            name = self.text(base)
            _bound, where = self.lookup(scope, name)
            if wanted is None or where is None:
                return
            flow = Flow(value, scope, f"{name}[{self.text(key)}]", step)
            where.items.setdefault(name, {}).setdefault(wanted, []).append(flow)
        elif t in ("pattern_list", "tuple_pattern", "list_pattern", "tuple", "list") and not step:
            # a, b = f, g: pairwise, when both sides are literal; around a
            # starred target (`a, *rest, z = ...`) from each end
            targets, values = target.named_children, value.named_children
            if value.type not in ("expression_list", "tuple", "list"):
                # a, b = pair(): each the tuple's position (as a step, `[1]`),
                # up to a `*rest` and the positions chains follow
                for n, tgt in enumerate(targets[: chains.POSITIONS]):
                    if tgt.type == "list_splat_pattern":
                        break
                    if tgt.type in ("identifier", "attribute"):
                        self.pair(tgt, value, scope, f"[{n}]")
                return
            if any(n.type == "list_splat" for n in values):
                return
            stars = [i for i, n in enumerate(targets) if n.type == "list_splat_pattern"]
            if len(stars) > 1 or (not stars and len(targets) != len(values)):
                return
            star = stars[0] if stars else len(targets)
            after = len(targets) - star - 1 if stars else 0
            if star + after > len(values):
                return
            for tgt, val in zip(targets[:star], values[:star], strict=True):
                self.pair(tgt, val, scope)
            if after:
                for tgt, val in zip(targets[-after:], values[-after:], strict=True):
                    self.pair(tgt, val, scope)

    def arguments(self, call: ts.Node, scope: Scope) -> None:
        """The arguments of a call to a function of this file flow into its
        parameters; ``map(f, xs)`` calls ``f``."""
        fn, args = call.child_by_field_name("function"), call.child_by_field_name("arguments")
        if fn is None or args is None or args.type != "argument_list":
            return
        last = fn.child_by_field_name("attribute") if fn.type == "attribute" else fn
        if last is None:
            return
        if self.text(last) not in self.callables:
            # `c(b)` with `c = func`, or a parameter called with arguments:
            # routed once every direct call's arguments are in (indirect())
            if fn.type == "identifier" and args.named_child_count:
                bound, _where = self.lookup(scope, self.text(fn))
                if bound is not None and bound.what in ("local", "var"):
                    self.through.append((call, scope))
            return
        target = None
        if fn.type == "identifier":
            name = self.text(fn)
            bound, _where = self.lookup(scope, name)
            if bound is not None and bound.what in ("local", "var") and args.named_child_count:
                self.through.append((call, scope))
                return
            if bound is None and name in CALLING_BUILTINS:
                first = args.named_children[0] if args.named_children else None
                if first is not None and first.type in ("identifier", "attribute"):
                    via = f"called by {name}()"
                    self.pending.append(Pending(scope, "call", first, [], value=True, via=via))
                return
            if bound is None or bound.what != "def":
                return
            if bound.qualname in self.functions:
                inner, params, _method = self.functions[bound.qualname]
                target = (params, inner)
            elif f"{bound.qualname}.__init__" in self.functions:  # C(...) runs C.__init__
                inner, params, _method = self.functions[f"{bound.qualname}.__init__"]
                target = (params[1:], inner)
        elif (method_of := self.self_attribute(fn, scope)) is not None:  # self.m(...)
            found = self.functions.get(method_of)
            if found is not None:
                inner, params, is_method = found
                target = (params[1:] if is_method else params, inner)
        elif fn.type == "attribute" and args.named_child_count:  # obj.m(f), obj of this file
            self.through.append((call, scope))
            return
        if target is not None:
            self.route(args, scope, *target)

    def indirect(self) -> None:
        """Route the arguments of calls made through a value (``c = func;
        c(b)``, ``obj.m(f)``, a parameter called with arguments) and of
        decorators (``@d def f`` calls ``d(f)``) into the parameters of the
        functions of this file the value may be. What a
        callee may be is known only once the direct calls' arguments are in,
        and a parameter called in turn passes on what it got, so this runs
        again while it routes anything new, at most ``MAX_DEPTH`` rounds;
        values are evaluated afresh after each (``memo`` is cleared)."""
        routed: set[tuple[int, str]] = set()
        for _round in range(MAX_DEPTH):
            added = False
            for expr, scope, qual, below in self.decorated:  # `@d def f`: d(f)
                for v in self.values(expr, scope):
                    target = self.callee(v) if (expr.id, v.chain) not in routed else None
                    if target is None or not target[0]:
                        continue
                    routed.add((expr.id, v.chain))
                    params, inner = target
                    given = self.decorated_value(qual, below, scope)
                    for value in given:
                        words = f"{params[0]} = {qual} (decorated with @{self.text(expr)})"
                        flow = Flow(None, None, words, value=value)
                        inner.flows.setdefault(params[0], []).append(flow)
                    added = added or bool(given)
            for call, scope in self.through:
                fn, args = (
                    call.child_by_field_name("function"),
                    call.child_by_field_name("arguments"),
                )
                if fn is None or args is None:
                    continue
                for v in self.values(fn, scope):
                    target = self.callee(v) if (call.id, v.chain) not in routed else None
                    if target is not None:
                        routed.add((call.id, v.chain))
                        self.route(args, scope, *target)
                        added = True
            self.memo.clear()
            if not added:
                return

    def decorated_value(self, qual: str, below: ts.Node | None, scope: Scope) -> list[Value]:
        """What a decorator is given: the definition, or what the decorator
        below it returns (``@a @b def f``: a is given ``b(f)``)."""
        if below is None:
            return [Value(self.path, qual, "")]
        return self.extend(self.values(below, scope), chains.call)

    def callee(self, value: Value) -> tuple[list[str], Scope] | None:
        """The parameters a call of ``value`` passes its arguments to, and the
        function's scope: a function of this file (``func``), a class of it
        (``C``: its ``__init__``), or a method of one of its instances
        (``C().m``); None for anything else."""
        if value.path != self.path:
            return None
        chain = value.chain
        if chain in self.functions:
            inner, params, _method = self.functions[chain]
            return params, inner
        if f"{chain}.__init__" in self.functions:
            inner, params, _method = self.functions[f"{chain}.__init__"]
            return params[1:], inner
        cls, call, method = chain.partition(chains.CALL + ".")
        if call and chains.CALL not in cls and "." not in method:
            found = self.functions.get(f"{cls}.{method}")
            if found is not None and found[2]:
                return found[1][1:], found[0]
        return None

    def route(self, args: ts.Node, scope: Scope, params: list[str], inner: Scope) -> None:
        """One call's arguments into the parameters of the function it calls:
        by position, then by keyword; nothing after a ``*`` or ``**`` splat."""
        position = 0
        for a in args.named_children:
            if a.type in ("list_splat", "dictionary_splat"):
                return  # what follows a splat lands where the rules cannot say
            if a.type == "keyword_argument":
                key, value = a.child_by_field_name("name"), a.child_by_field_name("value")
                if key is None or value is None:
                    continue
                name = self.text(key)
                if name in inner.names:
                    inner.flows.setdefault(name, []).append(Flow(value, scope, name))
            elif a.type != "comment":
                if position < len(params):
                    name = params[position]
                    words = f"argument at line {a.start_point[0] + 1}"
                    inner.flows.setdefault(name, []).append(Flow(a, scope, name, words=words))
                position += 1

    def describe(self, flow: Flow) -> str:
        if flow.verbatim or flow.node is None:
            return flow.label
        if flow.step in ("iter", "entry"):  # for u in users: an element, not the container
            return self.how(f"for {flow.label}", flow.node, flow.words, " in ")
        if flow.step == "instance":  # `x: User`, `except E as x`: an instance of the class
            return self.how(flow.label, flow.node, flow.words, ": ")
        return self.how(flow.label, flow.node, flow.words)

    def how(self, name: str, node: ts.Node, words: str = "", op: str = " = ") -> str:
        snippet = chains.one_line(self.text(node))
        return f"{name}{op}{snippet} ({words or f'line {node.start_point[0] + 1}'})"

    def values(self, node: ts.Node, scope: Scope, depth: int = 0) -> list[Value]:
        """What an expression may evaluate to, as chains; [] when unknown."""
        self.steps_left -= 1
        if depth > MAX_DEPTH or self.steps_left < 0:
            return []
        t = node.type
        if t == "identifier":
            name = self.text(node)
            if name in self.narrowed and (found := self.narrowed_at(name, node, scope)):
                return found
            return self.name_values(name, scope, depth)
        if t == "attribute":
            obj, attr = node.child_by_field_name("object"), node.child_by_field_name("attribute")
            if obj is None or attr is None:
                return []
            name = self.text(attr)
            if name == "__class__" and (cls := self.own_class(obj, scope)) is not None:
                return [cls]  # self.__class__: the method's class, as self is its instance
            return self.extend(self.values(obj, scope, depth + 1), lambda c: chains.attr(c, name))
        if t == "call":
            fn = node.child_by_field_name("function")
            if fn is None or (fn.type == "identifier" and self.text(fn) == "super"):
                return []
            if fn.type == "attribute" and (got := self.got_item(fn, scope)):
                return got
            if fn.type == "identifier" and (made := self.call_result(fn, scope)):
                return made
            if fn.type == "identifier" and self.text(fn) == "type":  # type(self)
                args = node.child_by_field_name("arguments")
                only = args.named_children if args is not None else []
                if len(only) == 1 and self.lookup(scope, "type")[0] is None:
                    cls = self.own_class(only[0], scope)
                    return [cls] if cls is not None else []
            args = node.child_by_field_name("arguments")
            given = (
                [a for a in args.named_children if a.type not in _NOT_POSITIONAL] if args else []
            )
            if given and self.imported(fn, scope, _FUNCTOOLS, "partial"):
                return self.values(given[0], scope, depth + 1)  # partial(f, x)() calls f
            if (
                fn.type == "identifier"
                and self.text(fn) in _PICKERS
                and given
                and self.lookup(scope, self.text(fn))[0] is None
            ):  # next(it), max(users): one of the elements; min(a, b): one of them
                if len(given) == 1 or self.text(fn) == "next":
                    return self.elements(given[0], scope, depth + 1)
                return self.cap([v for a in given for v in self.values(a, scope, depth + 1)])
            if self.is_typing_cast(fn, scope):  # cast(User, x): a User, as a type checker reads it
                args = node.child_by_field_name("arguments")
                first = args.named_children[0] if args is not None and args.named_children else None
                return self.instances(class_expr(first, self.text), scope)
            return self.extend(self.values(fn, scope, depth + 1), chains.call)
        if t in ("parenthesized_expression", "await"):
            inner = node.named_children
            return self.values(inner[0], scope, depth + 1) if len(inner) == 1 else []
        if t == "conditional_expression":  # a if c else b
            kids = node.named_children
            if len(kids) != 3:
                return []
            return self.cap(
                self.values(kids[0], scope, depth + 1) + self.values(kids[2], scope, depth + 1)
            )
        if t == "boolean_operator":  # a or b
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is None or right is None:
                return []
            return self.cap(
                self.values(left, scope, depth + 1) + self.values(right, scope, depth + 1)
            )
        if t == "subscript":
            return self.item_values(node, scope, depth)
        return []

    def narrowed_at(self, name: str, node: ts.Node, scope: Scope) -> list[Value]:
        """An instance of the class the innermost ``isinstance`` test around
        ``node`` proves ``name`` holds (the same variable: not one a nested
        function binds); [] where no test guards it."""
        found = self.narrowed[name].innermost(node.start_byte)
        if found is None:
            return []
        test, where = found
        if self.lookup(scope, name)[1] is not self.lookup(where, name)[1]:
            return []
        typed = self.symbol_of(test.cls, where)
        if typed is None:
            return []
        how = f"case {typed[1]}()" if test.test == "case" else f"isinstance({name}, {typed[1]})"
        return [Value(typed[0], typed[1] + chains.CALL, how)]

    def extend(self, found: list[Value], step: Callable[[str], str | None]) -> list[Value]:
        out = []
        for v in found:
            chain = step(v.chain)
            if chain is not None and chains.length(chain) <= chains.MAX_STEPS:
                out.append(Value(v.path, chain, v.how))
        return out

    def cap(self, found: list[Value]) -> list[Value]:
        unique = list(dict.fromkeys(found))
        return unique if len(unique) <= MAX_VALUES else []

    def own_class(self, node: ts.Node, scope: Scope) -> Value | None:
        """The class a method's ``self`` is an instance of, when ``node`` is
        that ``self`` (not in a classmethod, whose ``cls`` is the class)."""
        if node.type != "identifier":
            return None
        _bound, where = self.lookup(scope, self.text(node))
        if where is None or where.cls is None or where.is_classmethod:
            return None
        if self.text(node) != where.receiver:
            return None
        return Value(self.path, where.cls, f"the class of {where.receiver}, {where.cls}")

    def name_values(self, name: str, scope: Scope, depth: int) -> list[Value]:
        bound, where = self.lookup(scope, name)
        # `self` where the method binds it: its lambdas, comprehensions and
        # nested functions too (a closure over self)
        method = where
        if method is not None and method.cls is not None and name == method.receiver:
            if method.is_classmethod:
                return [Value(self.path, method.cls, f"{name} is the class {method.cls}")]
            return [Value(self.path, method.cls + chains.CALL, f"{name} is a {method.cls}")]
        if bound is None or where is None:
            return []
        if bound.what == "def":
            return [Value(self.path, bound.qualname, "")]
        if bound.what == "import":
            return [Value(bound.path, bound.qualname, "")] if bound.path else []
        if bound.what == "module":
            return [Value(bound.path, "", "")] if bound.path else []
        key = (id(where), name)
        if key in self.memo:  # also ends a cycle (`a = b`, `b = a`): [] while in progress
            return self.memo[key]
        self.memo[key] = []
        out: list[Value] = []
        if bound.what == "typed" and bound.type_node is not None:
            typed = self.symbol_of(bound.type_node, bound.type_scope or where)
            if typed is not None:
                self.memo[key] = [
                    Value(typed[0], typed[1] + chains.CALL, f"{name} is a {typed[1]}")
                ]
                return self.memo[key]
        flows = where.flows.get(name, [])
        if len(flows) > MAX_VALUES:
            return []
        # an annotation that names a class is the name's type, as a type
        # checker reads it (`x: Base = make()`): its other values are not followed
        for group in ([f for f in flows if f.declared], [f for f in flows if not f.declared]):
            for flow in group:
                out.extend(
                    Value(v.path, v.chain, v.how or self.describe(flow))
                    for v in self.flow_values(flow, depth + 1)
                )
            if out:
                break
        self.memo[key] = self.cap(out)
        return self.memo[key]

    def flow_values(self, flow: Flow, depth: int) -> list[Value]:
        if flow.value is not None:
            return [flow.value]
        if flow.node is None or flow.scope is None or depth > MAX_DEPTH:
            return []
        if flow.step == "iter":  # for f in (a, b): an element of a literal sequence
            return self.elements(flow.node, flow.scope, depth)
        if flow.step in (*CONTAINERS, "returns"):
            # `xs: list[User]` says what its elements are, `make: Callable[...,
            # User]` what calling it gives: neither what the name itself holds
            return []
        if flow.step == "entry":  # for k, u in by_name.items(): an item of by_name
            return self.declared_items(flow.node, flow.scope)
        if flow.step == "yields":  # a @contextmanager's `-> Iterator[User]`: a User
            return self.held_in(flow)
        if flow.step == "instance":  # an annotation or an `except` class
            typed = self.symbol_of(flow.node, flow.scope)
            if typed is None:
                return []
            return [Value(typed[0], typed[1] + chains.CALL, "")]
        found = self.values(flow.node, flow.scope, depth)
        if flow.step == "enter":  # with X() as x: what X().__enter__() returns
            return self.extend(found, lambda c: chains.call(chains.attr(c, "__enter__")))
        n = chains.index_of(flow.step)
        if n is not None:  # a, b = pair(): a position of what it gives
            return self.extend(found, lambda c: chains.position(c, n))
        return found

    def elements(self, node: ts.Node, scope: Scope, depth: int) -> list[Value]:
        """Any element of a literal sequence, of a name bound to one, or of a
        name, ``self`` attribute or call of this file annotated as a container
        of a class (``xs: list[User]``, ``-> Iterator[User]``); through
        ``sorted``, ``reversed``, ``list``, ``tuple``, ``set`` and ``iter``."""
        out: list[Value] = []
        if depth > MAX_DEPTH:
            return out
        t = node.type
        if t in ("list", "tuple", "set"):
            for element in node.named_children:
                out.extend(self.values(element, scope, depth + 1))
        elif t in _ELEMENT_COMPREHENSIONS and (inner := self.comprehensions.get(node.id)):
            body = node.child_by_field_name("body")  # [User(r) for r in rows]
            out = self.values(body, inner, depth + 1) if body is not None else []
        elif t == "identifier":
            out = self.name_elements(self.text(node), scope, depth)
        elif t == "attribute":  # self.users
            holder = self.self_attribute(node, scope)
            if holder is not None:
                out.extend(self.held_items(holder))
        elif t == "call":
            fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
            if fn is None or args is None:
                return out
            if fn.type == "identifier":
                name = self.text(fn)
                bound, _where = self.lookup(scope, name)
                if self.passes_elements(node, scope) and args.named_child_count >= 1:
                    return self.elements(args.named_children[0], scope, depth + 1)
                if bound is not None and bound.what == "def":  # -> Iterator[User]
                    out.extend(self.held_items(chains.holder_of_return(bound.qualname)))
            elif (holder := self.self_attribute(fn, scope)) is not None:  # self.users()
                out.extend(self.held_items(chains.holder_of_return(holder)))
            elif fn.type == "attribute":  # by_name.values()
                obj, attr = fn.child_by_field_name("object"), fn.child_by_field_name("attribute")
                if obj is not None and attr is not None and self.text(attr) == "values":
                    out.extend(self.declared_items(obj, scope))
                    if not out and obj.type == "identifier":  # by_name[k] = User()
                        out.extend(self.contents(obj, scope, None, depth + 1))
        if not out and t in ("identifier", "attribute", "call"):
            # nothing this file can see: an element of the value, for the linker
            # to read from a holder annotated as a container in any file
            out = self.extend(self.values(node, scope, depth + 1), chains.element)
        return self.cap(out)

    def passes_elements(self, node: ts.Node, scope: Scope) -> bool:
        """Whether ``node`` calls a builtin that gives the elements it is
        given (``sorted(users)``, ``list(users)``), unshadowed."""
        fn = node.child_by_field_name("function") if node.type == "call" else None
        if fn is None or fn.type != "identifier":
            return False
        name = self.text(fn)
        return name in PASS_ELEMENTS and self.lookup(scope, name)[0] is None

    def name_elements(self, name: str, scope: Scope, depth: int) -> list[Value]:
        """Any element of what a name holds, once per name, as name_values:
        names given each other would otherwise be walked once per path."""
        _bound, where = self.lookup(scope, name)
        self.steps_left -= 1
        if where is None or self.steps_left < 0:
            return []
        key = (id(where), f"{name}.{chains.ELEMENT}")
        if key in self.memo:
            return self.memo[key]
        self.memo[key] = []
        out: list[Value] = []
        for flow in where.flows.get(name, [])[: MAX_VALUES + 1]:
            if flow.step in CONTAINERS:
                out.extend(self.held_in(flow))
            elif not flow.step and flow.node is not None and flow.scope is not None:
                out.extend(self.elements(flow.node, flow.scope, depth + 1))
        for flow in where.items.get(name, {}).get(chains.ELEMENT, [])[: MAX_VALUES + 1]:
            out.extend(self.flow_values(flow, depth + 1))  # users.append(u)
        self.memo[key] = self.cap(out)
        return self.memo[key]

    def name_contents(self, name: str, scope: Scope | None, role: str) -> list[Value]:
        """The elements (or items: ``contained``'s ``role``) of a name
        annotated as a container where it is bound (``rules: list[Rule]``)."""
        _bound, where = self.lookup(scope, name) if scope is not None else (None, None)
        if where is None:
            return []
        flows = where.flows.get(name, [])[:MAX_VALUES]
        return self.cap([v for f in flows if f.step in CONTAINERS for v in self.held_in(f, role)])

    def is_typing_cast(self, fn: ts.Node, scope: Scope) -> bool:
        """``cast`` imported from typing, or ``typing.cast`` through the module."""
        return self.imported(fn, scope, TYPING_MODULES, "cast")

    def imported(self, fn: ts.Node, scope: Scope, modules: frozenset[str], name: str) -> bool:
        """Whether ``fn`` names ``name`` of one of ``modules``: imported from
        it (``from functools import partial``), or through the module
        (``functools.partial``)."""
        if fn.type == "identifier":
            bound, _where = self.lookup(scope, self.text(fn))
            return (
                bound is not None
                and bound.what == "import"
                and bound.module in modules
                and bound.qualname == name
            )
        if fn.type == "attribute":
            obj, attr = fn.child_by_field_name("object"), fn.child_by_field_name("attribute")
            if obj is None or attr is None or obj.type != "identifier" or self.text(attr) != name:
                return False
            bound, _where = self.lookup(scope, self.text(obj))
            return bound is not None and bound.what == "module" and bound.module in modules
        return False

    def held_in(self, flow: Flow, role: str = "element") -> list[Value]:
        """Instances of what an ``items`` (or ``yields``) flow's container
        annotation holds (``contained``'s ``role``); [] for any other flow."""
        if flow.step not in (*CONTAINERS, "yields") or flow.node is None or flow.scope is None:
            return []
        if flow.step in _SPLATS:  # `*args: User`: each element is a User
            return self.instances(flow.node, flow.scope) if role in _SPLATS[flow.step] else []
        return self.instances(contained(flow.node, self.text, role), flow.scope)

    def instances(self, class_node: ts.Node | None, scope: Scope) -> list[Value]:
        typed = self.symbol_of(class_node, scope) if class_node is not None else None
        return [Value(typed[0], typed[1] + chains.CALL, "")] if typed is not None else []

    def held_items(self, holder: str, role: str = "element") -> list[Value]:
        """The elements (or items) of a holder of this file annotated as a
        container: ``contained``'s ``role``."""
        if self.items_of is None:  # once the walk is over, every holder is known
            self.items_of = {}
            for key, flow, _where in self.holders:
                if flow.step == "items":
                    self.items_of.setdefault(key, []).append(flow)
        return [
            v
            for flow in self.items_of.get(holder, [])[:MAX_VALUES]
            for v in self.held_in(flow, role)
        ]

    def item_values(self, node: ts.Node, scope: Scope, depth: int) -> list[Value]:
        """``d["k"]`` and ``xs[0]`` of a name bound to a literal container,
        or whose items were set with literal keys (``d["k"] = f``)."""
        base, key = node.child_by_field_name("value"), node.child_by_field_name("subscript")
        if base is None or key is None:
            return []
        declared = self.declared_items(base, scope)
        if declared:  # `users: dict[str, User]`: users[k] is a User
            return declared
        if key.type != "slice" and self.passes_elements(base, scope):  # sorted(users)[0]
            return self.elements(base, scope, depth + 1)
        out = self.literal_items(base, key, scope, depth) if base.type == "identifier" else []
        if not out and base.type in ("identifier", "attribute", "call"):
            # s.users[k]: an item, for the linker to read from a holder
            # annotated as a container in any file; pair()[1]: a position
            n = int(self.text(key)) if key.type == "integer" and self.text(key).isdigit() else -1
            out = self.extend(
                self.values(base, scope, depth + 1),
                lambda c: chains.position(c, n) or chains.item(c),
            )
        return self.cap(out)

    def literal_items(self, base: ts.Node, key: ts.Node, scope: Scope, depth: int) -> list[Value]:
        """``d["k"]`` of a name bound to a literal container or given literal
        keys. A key the rules cannot read (``d[name]``) may be any of them:
        every value, as a ``may`` edge; a parameter or local given only
        literals (``def f(key="a")``, ``f("b")``) may be each of those."""
        if key.type == "slice":  # xs[1:3] is a list, not an element
            return []
        return self.contents(base, scope, self.keys(key, scope), depth)

    def keys(self, key: ts.Node, scope: Scope) -> set[str] | None:
        """The literal keys a subscript may use; None when it may be any."""
        wanted = literal(key, self.text)
        if wanted is not None:
            return {wanted}
        if key.type != "identifier":
            return None
        name = self.text(key)
        _bound, where = self.lookup(scope, name)
        flows = where.flows.get(name, []) if where is not None else []
        if not flows or len(flows) > MAX_VALUES:
            return None
        keys: set[str] = set()
        for flow in flows:
            k = literal(flow.node, self.text) if flow.node is not None and not flow.step else None
            if k is None:
                return None
            keys.add(k)
        return keys

    def contents(
        self,
        base: ts.Node,
        scope: Scope,
        wanted: set[str] | None,
        depth: int,
        seen: set[tuple[int, str]] | None = None,
    ) -> list[Value]:
        """What the ``wanted`` keys (None: any) of the container a name holds
        give: its literal entries, ``name[k] = v`` assignments, and through
        a name or parameter given the container (each name once: names
        given each other would otherwise be walked once per path)."""
        name = self.text(base)
        _bound, where = self.lookup(scope, name)
        seen = set() if seen is None else seen
        self.steps_left -= 1
        if where is None or depth > MAX_DEPTH or (id(where), name) in seen or self.steps_left < 0:
            return []
        seen.add((id(where), name))
        if len(where.flows.get(name, ())) > MAX_VALUES:
            return []  # too many to be useful, as for any name
        out: list[Value] = []
        for k, flows in where.items.get(name, {}).items():
            if wanted is None or k in wanted or k == chains.ELEMENT:  # appended: any index
                for flow in flows:
                    out.extend(self.flow_values(flow, depth + 1))
        for flow in where.flows.get(name, []):
            container = flow.node
            if container is None or flow.scope is None or flow.step:
                continue
            if container.type == "identifier":  # an alias, or a parameter given it
                out.extend(self.contents(container, flow.scope, wanted, depth + 1, seen))
            elif container.type == "dictionary":
                for pair in container.named_children:
                    at, v = pair.child_by_field_name("key"), pair.child_by_field_name("value")
                    if pair.type != "pair" or at is None or v is None:
                        continue
                    if wanted is None or (literal(at, self.text) or "") in wanted:
                        out.extend(self.values(v, flow.scope, depth + 1))
            elif container.type in ("list", "tuple"):
                elements = [e for e in container.named_children if e.type != "comment"]
                # after a `*xs`, no position is known; before it, only from the front
                splat = next((i for i, e in enumerate(elements) if e.type == "list_splat"), None)
                for i, element in enumerate(elements[:splat]):
                    back = str(i - len(elements)) if splat is None else ""
                    if wanted is None or str(i) in wanted or back in wanted:
                        out.extend(self.values(element, flow.scope, depth + 1))
        return out

    def call_result(self, fn: ts.Node, scope: Scope) -> list[Value]:
        """What calling a name this file annotates ``Callable[..., User]``
        gives: a ``User``."""
        name = self.text(fn)
        _bound, where = self.lookup(scope, name)
        flows = where.flows.get(name, []) if where is not None else []
        return [
            v
            for flow in flows[: MAX_VALUES + 1]
            if flow.step == "returns" and flow.scope is not None
            for v in self.instances(contained(flow.node, self.text, "result"), flow.scope)
        ]

    def got_item(self, fn: ts.Node, scope: Scope) -> list[Value]:
        """``by_name.get(k)``, ``.pop(k)``, ``.setdefault(k, v)``: an item,
        when this file annotates ``by_name`` as a container of a class."""
        obj, attr = fn.child_by_field_name("object"), fn.child_by_field_name("attribute")
        if obj is None or attr is None or self.text(attr) not in chains.ITEM_GETTERS:
            return []
        return self.declared_items(obj, scope)

    def declared_items(self, base: ts.Node, scope: Scope) -> list[Value]:
        """What subscripting a name or ``self`` attribute gives when this file
        annotates it as a container (``contained``'s ``item``)."""
        if base.type == "identifier":
            name = self.text(base)
            _bound, where = self.lookup(scope, name)
            flows = where.flows.get(name, []) if where is not None else []
            return [v for flow in flows[: MAX_VALUES + 1] for v in self.held_in(flow, "item")]
        holder = self.self_attribute(base, scope)
        return self.held_items(holder, "item") if holder is not None else []

    def self_attribute(self, node: ts.Node, scope: Scope) -> str | None:
        """The holder ``C.name`` of ``self.name`` in a method of class ``C``."""
        if node.type != "attribute":
            return None
        obj, attr = node.child_by_field_name("object"), node.child_by_field_name("attribute")
        method = self.method_scope(scope)
        if (
            obj is None
            or attr is None
            or method is None
            or method.cls is None
            or self.text(obj) != method.receiver
            or self.lookup(scope, method.receiver)[1] is not method
        ):
            return None
        return f"{method.cls}.{self.text(attr)}"


def literal(node: ts.Node, text: Callable[[ts.Node], str]) -> str | None:
    """A literal key as one canonical string: ``"k"`` and ``'k'`` are the same."""
    if node.type == "integer":
        return text(node)
    if node.type == "unary_operator" and text(node).replace(" ", "").lstrip("-").isdigit():
        return text(node).replace(" ", "")  # xs[-1]
    if node.type == "string":
        parts = [c for c in node.named_children if c.type not in ("string_start", "string_end")]
        if all(c.type == "string_content" for c in parts):
            return "s:" + "".join(text(c) for c in parts)
    return None


def last_name(chain: str) -> str:
    """The name a chain's reference row is filed under: its last attribute,
    or ``()`` when it ends in a call (the callee is a returned value, whose
    name only the linker learns)."""
    if chain.endswith(chains.CALL):
        return chains.CALL
    return chain.rsplit(".", 1)[-1]
