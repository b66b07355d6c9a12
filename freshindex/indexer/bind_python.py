"""Python references, each with the definition the code's own rules say it names.

Over 400 lines as one concept: one walk of a file with Python's scope stack,
whose binding rules (imports, locals, self, classes) all read the same scopes.

Pure and per file, like the rest of the indexer: one file's syntax tree and
the tree's paths (through the resolver) in, reference sites out. A site's
*symbolic target* is a (path, qualname) pair: ``from .models import Model``
then ``Model.save()`` names ``("pkg/models.py", "Model.save")``. Whether that
definition exists, and where a re-export or an inherited method leads, depends
on other files, so it is decided when the index is read (freshindex/query/link.py),
the way stack graphs stitch per-file partial paths at query time: an edit
rewrites only its own file's rows, never the rows of every file that refers to it.

Scopes follow Python's rules: function locals (parameters and any name bound
in the body, unless declared ``global``/``nonlocal``), enclosing functions,
the module, then builtins; a class body's names are not visible from its
methods. What the rules cannot decide stays a candidate, never a guess:
``obj.save()`` on a receiver of unknown type names only "some ``save``".

Uses that are not calls are sites too (kind ``use``): a name passed or
assigned as a value, in ``isinstance`` or ``except``, in an annotation, or as
a decorator. Only names that resolve to a definition or an imported symbol
become ``use`` rows: a read of a local variable names no definition.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from dataclasses import replace
from itertools import repeat

import tree_sitter as ts

from freshindex.indexer import chains, fixtures_python
from freshindex.indexer.annotations import (
    class_expr,
    class_of_type,
    forward_reference,
    is_callable,
    is_container,
    is_generic,
    tuple_classes,
    union_classes,
)
from freshindex.indexer.builtins_python import builtin_type, flows_type
from freshindex.indexer.flow_python import (
    CALLING_BUILTINS,
    CONTEXT_MANAGERS,
    FLOW_STEPS_FLOOR,
    PROPERTIES,
    Flow,
    Value,
    ValueFlow,
    last_name,
)
from freshindex.indexer.guarded import Guarded
from freshindex.indexer.narrow_python import Narrowing, case_narrowings, narrowing
from freshindex.indexer.outside_python import is_outside
from freshindex.indexer.protocols_python import (
    LONGEST_BUILTIN,
    SPECIAL_BUILTINS,
    SYNTAX_NODES,
    Implicit,
    ImplicitCalls,
)
from freshindex.indexer.resolve import Resolver
from freshindex.indexer.scope_python import BOUND, CANDIDATE, EXTERNAL, Name, Pending, Scope, Site

BUILTINS = frozenset(dir(builtins))
# the builtin types whose methods a holder's users call (`self.lines.append`):
# a holder of one gets a value row; a number or a tuple is not worth the row
HELD_BUILTINS = frozenset({"str", "bytes", "list", "dict", "set"})
_SPLATS = ("list_splat_pattern", "dictionary_splat_pattern")


# a target that is a module (`import pkg.mod`): a file, not a definition in it
MODULE = ""
# `raise E`: a call of E when E names a class (Python instantiates it), a
# read of E otherwise (`raise err`, an instance)
RAISE = "raise"

_FUNCTION_SCOPES = ("function_definition", "lambda")
_COMPREHENSIONS = (
    "list_comprehension",
    "set_comprehension",
    "dictionary_comprehension",
    "generator_expression",
)
_PATTERNS = (
    "pattern_list",
    "tuple_pattern",
    "list_pattern",
    "tuple",
    "list",
    "parenthesized_expression",
    "list_splat_pattern",
    "as_pattern_target",
    "expression_list",
)
# methods that add an element to a container: the argument's position
_ADDERS = {"append": 0, "add": 0, "appendleft": 0, "insert": 1, "extend": 0}
# arguments that are no element worth a flow
_NO_ELEMENT = frozenset({"keyword_argument", "list_splat", "dictionary_splat", "string", "integer"})
# nodes that hold no references to names
_INERT = ("integer", "float", "comment", "true", "false", "none")
# nodes visit() treats on their own; any other node is only its children
_SPECIAL = frozenset(
    {
        *_INERT,
        *_COMPREHENSIONS,
        "string",
        "identifier",
        "attribute",
        "call",
        "keyword_argument",
        "decorated_definition",
        "function_definition",
        "class_definition",
        "lambda",
        "import_statement",
        "import_from_statement",
        "future_import_statement",
        "global_statement",
        "nonlocal_statement",
        "assignment",
        "augmented_assignment",
        "for_statement",
        "as_pattern",
        "named_expression",
        "return_statement",
        "yield",
        "raise_statement",
        "match_statement",
        *SYNTAX_NODES,  # what calls a special method implicitly
    }
)


def bind(path: str, data: bytes, tree: ts.Tree, resolve: Resolver | None) -> list[Site]:
    """Every reference site of one Python file, in no particular order."""
    return _Binder(path, data, resolve).run(tree.root_node)


class _Binder(ValueFlow, ImplicitCalls):
    def __init__(self, path: str, data: bytes, resolve: Resolver | None):
        self.path = path
        self.data = data
        self.resolve = resolve
        self.sites: list[Site] = []
        self.pending: list[Pending] = []
        # what other files can see a value through: (holder, flow, where)
        self.holders: list[tuple[str, Flow, ts.Node]] = []
        self.items_of = None
        self.comprehensions: dict[int, Scope] = {}
        self.calls: list[tuple[ts.Node, Scope]] = []
        self.narrowed: dict[str, Guarded[tuple[Narrowing, Scope]]] = {}
        self.through: list[tuple[ts.Node, Scope]] = []
        self.decorated: list[tuple[ts.Node, Scope, str, ts.Node | None]] = []
        self.context_managers: set[str] = set()  # qualnames of @contextmanager functions
        self.steps_left = FLOW_STEPS_FLOOR + len(data)
        # a function of this file: its scope, its parameters, and whether a
        # call through an instance passes the first one
        self.functions: dict[str, tuple[Scope, list[str], bool]] = {}
        self.memo: dict[tuple[int, str], list[Value]] = {}
        self.callables: set[str] = set()
        # the modules of the repository this file imports * from
        self.stars: list[str] = []
        # pytest (indexer/fixtures_python.py): this file's fixture functions,
        # and its fixtures by name (read when a test first asks)
        self.fixtures: set[str] = set()
        self.module_fixtures: dict[str, str] | None = None
        self.conftest: str | None = None  # the nearest conftest.py, with module_fixtures
        self.test_module = fixtures_python.is_test_module(path)
        self.root: ts.Node | None = None
        # special methods the syntax calls, made on a value (protocols_python.py)
        self.implicit: list[Implicit] = []

    def text(self, node: ts.Node) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def module_file(self, spec: str, name: str = "") -> str | None:
        return self.resolve("python", self.path, spec, name) if self.resolve else None

    # -- walk -----------------------------------------------------------------

    def run(self, root: ts.Node) -> list[Site]:
        self.root = root
        module = Scope("module", "", None, node=root)
        # an explicit stack: a 10,000-deep expression must not recurse
        todo: list[tuple[ts.Node, Scope]] = [(c, module) for c in reversed(root.named_children)]
        pop, extend = todo.pop, todo.extend
        while todo:
            node, scope = pop()
            if node.type in _SPECIAL:
                self.visit(node, scope, todo)
            else:  # most nodes: just their children, in the same scope
                extend(zip(reversed(node.named_children), repeat(scope)))
        # the names a call must use to reach a function of this file (or a
        # builtin that calls what it is given): most calls are of neither
        self.callables = {q.rsplit(".", 1)[-1] for q in self.functions} | set(CALLING_BUILTINS)
        self.callables |= {q.split(".")[-2] for q in self.functions if q.endswith(".__init__")}
        for call, scope in self.calls:
            self.arguments(call, scope)
        if self.through or self.decorated:
            self.indirect()
        for p in self.pending:
            self.emit(p)
        for i in self.implicit:
            self.implicit_sites(i)
        # a holder with an annotation that names a class holds that class's
        # instances: its other values are not followed (`self.t: Base = make()`)
        found = [
            (holder, flow, where, self.flow_values(flow, 0)) for holder, flow, where in self.holders
        ]
        # a holder annotated as a container: what its elements and items are,
        # for other files' `for u in s.users` and `s.by_name[k]`
        for holder, flow, where in self.holders:
            if flow.step == "items":
                found.append((f"{holder}.{chains.ELEMENT}", flow, where, self.held_in(flow)))
                found.append((f"{holder}.{chains.ITEM}", flow, where, self.held_in(flow, "item")))
            elif not flow.step and flow.node is not None and flow.node.type == "identifier":
                # `self.rules = rules` of a parameter `rules: list[Rule]`: the
                # holder's elements and items are the name's
                for step, role in ((chains.ELEMENT, "element"), (chains.ITEM, "item")):
                    held = self.name_contents(self.text(flow.node), flow.scope, role)
                    if held:
                        found.append((f"{holder}.{step}", flow, where, held))
        found += self.builtin_holders(found[: len(self.holders)])
        typed = {holder for holder, flow, _where, values in found if flow.declared and values}
        for holder, flow, where, values in found:
            if holder in typed and not flow.declared:
                continue
            for v in values:
                self.sites.append(
                    Site(
                        where,
                        "value",
                        path=v.path,
                        qualname=v.chain,
                        binding=BOUND,
                        via=self.describe(flow),
                        name=holder,
                        holder=holder,
                    )
                )
        return self.sites

    def builtin_holders(
        self, found: list[tuple[str, Flow, ts.Node, list[Value]]]
    ) -> list[tuple[str, Flow, ts.Node, list[Value]]]:
        """Holders all of whose values are of a builtin type (``self.lines =
        []``, ``-> dict[str, int]``), with that type as their one value
        (chains.BUILTIN): a method other files call on them is the platform's."""
        flows: dict[str, list[Flow]] = {}
        first: dict[str, tuple[Flow, ts.Node]] = {}
        known = set()
        for holder, flow, where, values in found:
            flows.setdefault(holder, []).append(flow)
            first.setdefault(holder, (flow, where))
            if values:
                known.add(holder)
        out = []
        for holder, given in flows.items():
            if holder in known:
                continue
            made = flows_type(given, self.text, self.lookup)
            # (one class from outside the repository: `self.session = Session()`)
            if made in HELD_BUILTINS or (made and is_outside(made) and " or " not in made):
                flow, where = first[holder]
                out.append((holder, flow, where, [Value(self.path, chains.BUILTIN + made, "")]))
        return out

    def iterated(self, left: ts.Node | None, right: ts.Node, scope: Scope) -> None:
        """``for u in users`` (a statement, or a comprehension's clause): ``u``
        is an element of ``users``; ``for i, u in enumerate(users)`` too."""
        if left is not None and left.type == "identifier":
            name = self.text(left)
            scope.flow(name, Flow(right, scope, name, step="iter"))
        elif left is not None and left.type == "pattern_list":
            self.enumerated(left, right, scope)

    def enumerated(self, left: ts.Node, right: ts.Node, scope: Scope) -> None:
        """``for i, user in enumerate(users)``: ``user`` is an element of
        ``users``; ``for u, g in zip(users, groups)``: ``u`` of ``users``, ``g``
        of ``groups``; ``for k, user in by_name.items()``: an item of ``by_name``."""
        fn, args = right.child_by_field_name("function"), right.child_by_field_name("arguments")
        targets = left.named_children
        if (
            right.type == "call"
            and fn is not None
            and fn.type == "attribute"
            and len(targets) == 2
            and targets[1].type == "identifier"
        ):
            obj, attr = fn.child_by_field_name("object"), fn.child_by_field_name("attribute")
            if obj is not None and attr is not None and self.text(attr) == "items":
                name = self.text(targets[1])
                scope.flow(name, Flow(obj, scope, name, step="entry"))
            return
        if (
            right.type != "call"
            or fn is None
            or args is None
            or fn.type != "identifier"
            or self.text(fn) not in ("enumerate", "zip")
            or self.lookup(scope, self.text(fn))[0] is not None
        ):
            return
        given = [a for a in args.named_children if a.type != "comment"]
        if self.text(fn) == "enumerate":  # (i, user): the second is an element
            if len(targets) != 2 or not given:
                return
            targets, given = targets[1:], given[:1]
        elif len(targets) != len(given) or any(a.type == "keyword_argument" for a in given):
            return
        for target, arg in zip(targets, given, strict=True):  # zip(users, groups)
            if target.type == "identifier" and arg.type != "list_splat":
                name = self.text(target)
                scope.flow(name, Flow(arg, scope, name, step="iter"))

    def added(self, call: ts.Node, fn: ts.Node, scope: Scope) -> None:
        """``users.append(u)`` (``add``, ``appendleft``, ``insert``; ``extend``
        by the elements it is given): ``u`` is an element of ``users``, a
        local's (read by name_elements) or a ``self`` attribute's (a holder's
        elements, ``C.users.[]``, for any file's ``for u in s.users``)."""
        attr = fn.child_by_field_name("attribute")
        if attr is None or attr.end_byte - attr.start_byte not in (3, 6, 10):
            return
        method = self.text(attr)
        args = call.child_by_field_name("arguments")
        given = [a for a in args.named_children if a.type != "comment"] if args else []
        n = _ADDERS.get(method)
        if n is None or len(given) != n + 1 or given[n].type in _NO_ELEMENT:
            return
        obj, value = fn.child_by_field_name("object"), given[n]
        step = "iter" if method == "extend" else ""
        if obj is not None and obj.type == "identifier":
            name = self.text(obj)
            _bound, where = self.lookup(scope, name)
            if where is not None:
                flow = Flow(value, scope, f"{name}.{method}()", step)
                where.items.setdefault(name, {}).setdefault(chains.ELEMENT, []).append(flow)
        elif obj is not None and (holder := self.self_attribute(obj, scope)) is not None:
            method_scope = self.method_scope(scope)
            words = f"in {method_scope.qualname}" if method_scope is not None else ""
            label = f"{self.text(obj)}.{method}()"
            flow = Flow(value, scope, label, step, words=words)
            self.holders.append((f"{holder}.{chains.ELEMENT}", flow, attr))

    def push(self, todo: list[tuple[ts.Node, Scope]], nodes: list[ts.Node], scope: Scope) -> None:
        todo.extend(zip(reversed(nodes), repeat(scope)))

    def isinstance_test(self, call: ts.Node, scope: Scope) -> None:
        """Where the builtin's test proves a name's class (narrow_python.py)."""
        if self.lookup(scope, "isinstance")[0] is not None:  # a function of its own
            return
        narrows = narrowing(call, self.text)
        if narrows is not None:
            guarded = self.narrowed.setdefault(narrows.name, Guarded())
            for start, end in narrows.spans:
                guarded.add(start, end, (narrows, scope))

    def visit(self, node: ts.Node, scope: Scope, todo: list[tuple[ts.Node, Scope]]) -> None:
        """One node that _SPECIAL names (run() pushes any other's children)."""
        t = node.type
        if t in _INERT:
            return
        if t == "string":  # only an f-string's interpolations hold code
            for c in node.named_children:
                if c.type == "interpolation":
                    todo.extend((e, scope) for e in c.named_children[:1])
            return
        if t == "identifier":
            self.pending.append(Pending(scope, "use", node, []))
        elif t == "attribute":
            self.chain(node, scope, "use", todo)
        elif t == "call":
            self.calls.append((node, scope))
            fn = node.child_by_field_name("function")
            if fn is not None:
                if fn.type == "identifier":
                    self.pending.append(Pending(scope, "call", fn, []))
                    width = fn.end_byte - fn.start_byte
                    if width == 10 and self.text(fn) == "isinstance":
                        self.isinstance_test(node, scope)
                    elif width <= LONGEST_BUILTIN and (
                        method := SPECIAL_BUILTINS.get(self.text(fn))
                    ):  # len(bag): Bag.__len__ (protocols_python.py)
                        self.builtin_call(node, fn, scope, method)
                elif fn.type == "attribute":
                    self.chain(fn, scope, "call", todo)
                    self.added(node, fn, scope)
                else:  # `make()()`, `handlers["k"]()`: the value is called
                    self.pending.append(Pending(scope, "call", fn, [], value=True))
                    todo.append((fn, scope))
            args = node.child_by_field_name("arguments")
            if args is not None:
                todo.append((args, scope))
        elif t == "keyword_argument":
            value = node.child_by_field_name("value")
            if value is not None:
                todo.append((value, scope))
        elif t == "decorated_definition":
            self.decorated_definition(node, scope, todo)
        elif t == "function_definition":
            self.function(node, scope, todo)
        elif t == "class_definition":
            self.klass(node, scope, todo)
        elif t == "lambda":
            inner = Scope("function", scope.qualname, scope, node=node)
            params = node.child_by_field_name("parameters")
            if params is not None:
                self.parameters(params, scope, inner, todo)
            body = node.child_by_field_name("body")
            if body is not None:
                todo.append((body, inner))
        elif t in _COMPREHENSIONS:
            inner = Scope("function", scope.qualname, scope, node=node)
            self.comprehensions[node.id] = inner
            for c in node.named_children:
                if c.type == "for_in_clause":
                    left, right = c.child_by_field_name("left"), c.child_by_field_name("right")
                    self.targets(left, inner, todo)
                    if right is not None:
                        todo.append((right, inner))
                        self.iterated(left, right, inner)
                        self.iterates(c, right, inner, "a comprehension")
                else:
                    todo.append((c, inner))
        elif t in ("import_statement", "import_from_statement", "future_import_statement"):
            self.imports(node, scope)
        elif t in ("global_statement", "nonlocal_statement"):
            for c in node.named_children:
                if c.type == "identifier":
                    if t == "global_statement":
                        scope.declared_global.add(self.text(c))
                    else:
                        scope.declared_nonlocal.add(self.text(c))
        elif t in ("assignment", "augmented_assignment"):
            left = node.child_by_field_name("left")
            self.targets(left, scope, todo)
            if t == "augmented_assignment" and left is not None and left.type == "subscript":
                self.implicit_call(left.child_by_field_name("value"), scope, "__getitem__", "`+=`")
            if t == "assignment":
                self.assign(node, scope)
            for part in ("type", "right"):
                child = node.child_by_field_name(part)
                if child is not None:
                    todo.append((child, scope))
        elif t in ("for_statement",):
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            self.targets(left, scope, todo)
            if right is not None:
                self.iterated(left, right, scope)
                self.iterates(node, right, scope, "a for loop")
            rest = [c for c in node.named_children if c != left]
            self.push(todo, rest, scope)
        elif t == "as_pattern":  # `with x as y`, `except E as e`
            alias = node.child_by_field_name("alias")
            for c in node.named_children:
                if c == alias:
                    self.targets(c, scope, todo)
                else:
                    todo.append((c, scope))
            value = node.named_children[0] if node.named_children else None
            name_node = (
                alias.named_children[0] if alias is not None and alias.named_children else None
            )
            if value is not None and name_node is not None and name_node.type == "identifier":
                name = self.text(name_node)
                inside = node.parent.type if node.parent is not None else ""
                step = "enter" if inside == "with_item" else "instance"
                scope.flow(name, Flow(value, scope, name, step=step))
        elif t == "named_expression":
            target = node.child_by_field_name("name")
            self.targets(target, scope, todo)
            value = node.child_by_field_name("value")
            if value is not None:
                todo.append((value, scope))
                if target is not None and target.type == "identifier":
                    name = self.text(target)
                    scope.flow(name, Flow(value, scope, name))
        elif t in ("return_statement", "yield"):
            value = node.named_children[0] if node.named_children else None
            function = _function_of(scope)
            if value is not None:
                todo.append((value, scope))
            if value is not None and function is not None and t == "yield":
                delegated = any(c.type == "from" for c in node.children)
                self.yielded(function.qualname, value, scope, delegated)
            elif value is not None and function is not None:
                how = f"return of {function.qualname}"
                flow = Flow(value, scope, how, verbatim=True)
                holder = chains.holder_of_return(function.qualname)
                self.holders.append((holder, flow, value))
                if value.type in ("expression_list", "tuple"):  # return user, err
                    self.positions(holder, value.named_children, scope, how)
        elif t == "match_statement":
            for narrows in case_narrowings(node, self.text):  # case User(): the subject is one
                guarded = self.narrowed.setdefault(narrows.name, Guarded())
                for start, end in narrows.spans:
                    guarded.add(start, end, (narrows, scope))
            self.push(todo, node.named_children, scope)
        elif t == "raise_statement":
            raised = node.named_children[0] if node.named_children else None
            if raised is not None and raised.type == "identifier":
                self.pending.append(Pending(scope, "call", raised, [], via=RAISE))
            elif raised is not None and raised.type == "attribute":
                self.chain(raised, scope, "call", todo, via=RAISE)
            elif raised is not None:
                todo.append((raised, scope))
            self.push(todo, node.named_children[1:], scope)  # `from cause`
        elif t in SYNTAX_NODES:
            self.protocol(node, scope, todo)
        else:
            self.push(todo, node.named_children, scope)

    def targets(
        self, node: ts.Node | None, scope: Scope, todo: list[tuple[ts.Node, Scope]]
    ) -> None:
        """Bind the names an assignment target binds; its other parts are loads
        (`self.x = ...` reads self, `d[k] = ...` reads d and k)."""
        if node is None:
            return
        stack = [node]
        while stack:
            n = stack.pop()
            if n.type == "identifier":
                name = self.text(n)
                what = Name("var", qualname=name) if scope.kind == "module" else Name("local")
                scope.bind(name, what)
            elif n.type in _PATTERNS:
                stack.extend(n.named_children)
            elif n.type == "subscript":  # `d[k] = v`: d.__setitem__, read d and k
                value = n.child_by_field_name("value")
                self.implicit_call(value, scope, "__setitem__", "assigning an item")
                self.push(todo, n.named_children, scope)
            elif n.type == "attribute":
                todo.append((n, scope))

    def parameters(
        self,
        params: ts.Node,
        outer: Scope,
        inner: Scope,
        todo: list[tuple[ts.Node, Scope]],
    ) -> tuple[list[str], list[str]]:
        """Bind parameters in ``inner``; defaults and annotations are read in
        ``outer``. All the names, and those an argument can reach by position."""
        names: list[str] = []
        positional: list[str] = []
        by_position = True
        for p in params.named_children:
            splat = p if p.type in _SPLATS else None
            if p.type == "typed_parameter" and p.named_children[0].type in _SPLATS:
                splat = p.named_children[0]  # `**kwargs: Any`
            if splat is not None or p.type == "keyword_separator":
                by_position = False
            name_node = p if p.type == "identifier" else p.child_by_field_name("name")
            if name_node is None:  # *args, **kwargs
                held = splat or p
                name_node = next((c for c in held.named_children if c.type == "identifier"), None)
            if name_node is not None and name_node.type == "identifier":
                name = self.text(name_node)
                names.append(name)
                if by_position:
                    positional.append(name)
                if splat is not None:
                    # `*args` is a tuple and `**kwargs` a dict, whatever their
                    # annotation says of their values; `*handlers: Handler`
                    # says what each element is, `**opts: Option` each value
                    inner.names[name] = Name("local")
                    inner.flow(name, Flow(splat, inner, name, declared=True))
                    each = class_expr(p.child_by_field_name("type"), self.text)
                    if each is not None:
                        step = "each" if splat.type == "list_splat_pattern" else "values"
                        inner.flow(name, Flow(each, outer, name, step=step))
                else:
                    self.parameter(p, name, len(names) == 1, outer, inner)
            for part in ("type", "value"):
                c = p.child_by_field_name(part)
                if c is not None:
                    todo.append((c, outer))
        inner.params = frozenset(names)
        return names, positional

    def parameter(self, p: ts.Node, name: str, first: bool, outer: Scope, inner: Scope) -> None:
        """What a parameter's annotation and default say it holds; ``first``:
        it is the first (a method's receiver is its class's, not annotated)."""
        annotation = class_expr(p.child_by_field_name("type"), self.text)
        typed = annotation is not None and not (inner.cls is not None and first)
        inner.names[name] = (
            Name("typed", type_node=annotation, type_scope=outer) if typed else Name("local")
        )
        if typed and annotation is not None:
            # `delim = delim.toggle()` makes it a local of two bindings:
            # it may hold what the annotation says, or what was assigned
            # (`deployment = Deployment(**data)`, whatever the annotation)
            inner.flow(name, Flow(annotation, outer, name, step="instance"))
        kind = p.child_by_field_name("type")
        if annotation is None and is_container(kind, self.text):  # users: list[User]
            inner.flow(name, Flow(kind, outer, name, step="items", declared=True))
        elif annotation is None and kind and (members := union_classes(kind, self.text)):
            how = f"{name}: {self.text(kind)}"  # obj: Object | Alias: either one's
            for member in members:
                inner.flow(
                    name,
                    Flow(member, outer, how, step="instance", verbatim=True),
                )
        elif annotation is None and is_callable(kind, self.text):  # Callable[..., User]
            inner.flow(name, Flow(kind, outer, name, step="returns", declared=True))
        elif kind is not None and (cls := class_of_type(kind, self.text)) is not None:
            how = f"{name}: {self.text(kind)}"  # cls: type[User]
            inner.flow(name, Flow(cls, outer, how, declared=True, verbatim=True))
        default = p.child_by_field_name("value")
        if default is not None:  # def f(cb=handler)
            inner.flow(name, Flow(default, outer, name, words="default"))

    def define(self, node: ts.Node, scope: Scope) -> str | None:
        """Bind a def's or class's name in ``scope``; its qualname."""
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return None
        name = self.text(name_node)
        qual = f"{scope.qualname}.{name}" if scope.qualname else name
        scope.bind(name, Name("def", qualname=qual))
        return qual

    def function(self, node: ts.Node, scope: Scope, todo: list[tuple[ts.Node, Scope]]) -> None:
        qual = self.define(node, scope)
        if qual is None:
            return
        inner = Scope("function", qual, scope, node=node)
        if scope.kind == "class":
            inner.cls = scope.qualname
        decorators = self.decorators(node)
        if decorators & CONTEXT_MANAGERS:
            self.context_managers.add(qual)
        inner.is_classmethod = "classmethod" in decorators
        params = node.child_by_field_name("parameters")
        names, positional = (
            self.parameters(params, scope, inner, todo) if params is not None else ([], [])
        )
        method = inner.cls is not None and "staticmethod" not in decorators
        if method and names:
            inner.receiver = names[0]
        fixture = fixtures_python.fixture_name(node, self.text) if decorators else None
        if fixture is not None:
            self.fixture(qual, fixture, node, scope)
        if params is not None and (fixture is not None or self.is_test(qual, scope)):
            self.fixture_parameters(node, params, inner, method)
        # a call through an instance or the class passes the first parameter
        self.functions[qual] = (inner, positional, method)
        ret = node.child_by_field_name("return_type")
        if ret is not None:
            todo.append((ret, scope))
            written = " ".join(self.text(ret).split())  # a via is one line
            returned = class_expr(ret, self.text)
            if returned is not None and self.text(returned) == "Self" and inner.cls is not None:
                value = Value(self.path, inner.cls + chains.CALL, f"{qual} returns Self")
                flow = Flow(None, None, value.how, value=value, declared=True, verbatim=True)
                self.holders.append((chains.holder_of_return(qual), flow, returned))
            elif returned is not None:
                how = f"{qual} returns {' '.join(self.text(returned).split())}"
                declared = not is_generic(ret, self.text)
                flow = Flow(returned, scope, how, step="instance", declared=declared, verbatim=True)
                self.holders.append((chains.holder_of_return(qual), flow, returned))
            elif members := union_classes(ret, self.text):  # -> Object | Alias
                how = f"{qual} returns {written}"
                for member in members:
                    flow = Flow(member, scope, how, step="instance", verbatim=True)
                    self.holders.append((chains.holder_of_return(qual), flow, member))
            elif (cls := class_of_type(ret, self.text)) is not None:  # -> type[User]
                # beside the classes the body returns, not over them: a
                # factory's annotation names their base (jsonschema's
                # create() -> type[Validator] returns its own inner class)
                how = f"{qual} returns {written}"
                flow = Flow(cls, scope, how, verbatim=True)
                self.holders.append((chains.holder_of_return(qual), flow, ret))
            elif classes := tuple_classes(ret, self.text):  # -> tuple[User, Group]
                how = f"{qual} returns {written}"
                holder = chains.holder_of_return(qual)
                self.positions(holder, classes, scope, how, step="instance")
            elif is_container(ret, self.text):  # -> list[User]
                how = f"{qual} returns {written}"
                flow = Flow(ret, scope, how, step="items", declared=True, verbatim=True)
                self.holders.append((chains.holder_of_return(qual), flow, ret))
                if decorators & CONTEXT_MANAGERS:  # `with f() as x`: x is what f yields
                    how = f"{qual} is a context manager yielding from {self.text(ret)}"
                    flow = Flow(ret, scope, how, step="yields", declared=True, verbatim=True)
                    self.holders.append((chains.holder_of_enter(qual), flow, ret))
        if inner.cls is not None and any(d in PROPERTIES for d in decorators):
            # reading the attribute runs the getter
            value = Value(self.path, chains.holder_of_return(qual), f"property {qual}")
            name_node = node.child_by_field_name("name") or node
            self.holders.append(
                (qual, Flow(None, None, value.how, value=value, verbatim=True), name_node)
            )
        body = node.child_by_field_name("body")
        if body is not None:
            todo.append((body, inner))

    def positions(
        self,
        holder: str,
        elements: Sequence[ts.Node | None],
        scope: Scope,
        how: str,
        step: str = "",
    ) -> None:
        """Each element of a literal tuple (or class of ``tuple[A, B]``,
        ``step`` "instance") held in ``holder``: its position's holder
        (``f().[1]``), for ``a, b = f()`` and ``f()[1]`` in any file; none
        after a ``*xs``."""
        for n, element in enumerate(elements[: chains.POSITIONS]):
            if element is not None and element.type == "list_splat":
                return
            at = chains.position(holder, n)
            if at is not None and element is not None:
                declared = step == "instance"
                flow = Flow(element, scope, how, step=step, declared=declared, verbatim=True)
                self.holders.append((at, flow, element))

    def yielded(self, qual: str, value: ts.Node, scope: Scope, delegated: bool) -> None:
        """``yield x`` in ``qual``: an element of what calling it gives, for
        ``for u in users()`` in any file (holder ``users().[]``), and, in a
        ``@contextmanager``, what ``with qual() as x`` binds (its
        ``__enter__()``); ``yield from xs``: any element of ``xs``. Where
        the function is annotated (``-> Iterator[User]``), the annotation is
        what counts."""
        holder = chains.element(chains.holder_of_return(qual))
        if holder is None:
            return
        how = f"{qual} yields {' '.join(self.text(value).split())[:40]}"
        step = "iter" if delegated else ""
        self.holders.append((holder, Flow(value, scope, how, step=step, verbatim=True), value))
        if qual in self.fixtures and not delegated:  # what a test's parameter holds
            flow = Flow(value, scope, how, verbatim=True)
            self.holders.append((chains.holder_of_return(qual), flow, value))
        if qual in self.context_managers and not delegated:
            flow = Flow(value, scope, how, verbatim=True)
            self.holders.append((chains.holder_of_enter(qual), flow, value))

    def fixture(self, qual: str, name: str, node: ts.Node, scope: Scope) -> None:
        """``qual`` is the pytest fixture ``name``; ``@pytest.fixture(name="db")``:
        the name holds the function, for a test's ``db`` in another file."""
        self.fixtures.add(qual)
        if scope.kind == "module" and name != qual:
            value = Value(self.path, qual, f"fixture {name} is {qual}")
            flow = Flow(None, None, value.how, value=value, verbatim=True)
            self.holders.append((name, flow, node.child_by_field_name("name") or node))

    def is_test(self, qual: str, scope: Scope) -> bool:
        """A function pytest collects: ``test*`` at the top of a test module,
        or in a ``Test*`` class there."""
        if not self.test_module or not qual.rpartition(".")[2].startswith("test"):
            return False
        if scope.kind == "module":
            return True
        return (
            scope.kind == "class"
            and scope.qualname.startswith("Test")
            and "." not in scope.qualname
        )

    def fixture_parameters(
        self, node: ts.Node, params: ts.Node, inner: Scope, method: bool
    ) -> None:
        """A test's (or a fixture's) plain parameters hold the fixtures of
        their names: this module's, else the nearest conftest.py's."""
        plain = [p for p in params.named_children if p.type == "identifier"]
        skip = fixtures_python.parametrized(node, self.text)
        # `def httpbin(httpbin)`: a fixture asking for its own name gets the one
        # it overrides (a plugin's, a conftest's above), not itself
        own = fixtures_python.fixture_name(node, self.text)
        for param in plain[1:] if method else plain:
            name = self.text(param)
            if name in skip or name in inner.flows:
                continue
            if name in fixtures_python.BUILTIN:  # pytest's own: `monkeypatch.setattr()`
                inner.names[name] = Name("import", qualname=name, module="pytest")
                continue
            where = self.fixture_file(name)
            if where is not None:
                path, function = where
                how = f"fixture {name} of {path}"
                value = Value(path, chains.holder_of_return(function), how)
                inner.flow(name, Flow(None, None, how, value=value, verbatim=True))
                # the parameter asks pytest for the fixture: a reference of it
                # (a renamed one, `name="db"`, through its holder in that file)
                if name != own:
                    self.sites.append(
                        Site(param, "use", path=path, qualname=function, binding=BOUND, via=how)
                    )

    def fixture_file(self, name: str) -> tuple[str, str] | None:
        """(file, function) of the fixture ``name`` a test here sees, as far
        as this file can tell: its own, else the nearest conftest.py's name."""
        if self.module_fixtures is None:
            root = self.root
            self.module_fixtures = (
                fixtures_python.module_fixtures(root, self.text) if root is not None else {}
            )
            ups = range(1, self.path.count("/") + 2)
            found = (self.module_file("." * up + "conftest") for up in ups)
            self.conftest = next((c for c in found if c is not None), None)
        function = self.module_fixtures.get(name)
        if function is not None:
            return self.path, function
        return (self.conftest, name) if self.conftest is not None else None

    def decorators(self, node: ts.Node) -> set[str]:
        """The decorators of a def, as written without ``@`` or arguments."""
        parent = node.parent
        if parent is None or parent.type != "decorated_definition":
            return set()
        out = set()
        for c in parent.named_children:
            if c.type == "decorator" and c.named_children:
                expr = c.named_children[0]
                if expr.type == "call":
                    expr = expr.child_by_field_name("function") or expr
                out.add(self.text(expr))
        return out

    def decorated_definition(
        self, node: ts.Node, scope: Scope, todo: list[tuple[ts.Node, Scope]]
    ) -> None:
        """Its decorators, then the definition; ``@d def f`` calls ``d(f)``
        and ``@a @b def f`` calls ``a(b(f))``, routed by indirect()."""
        stacked: list[ts.Node] = []
        for c in node.named_children:
            if c.type == "decorator" and c.named_children:
                self.decorator(c.named_children[0], scope, todo)
                stacked.append(c.named_children[0])
            else:
                todo.append((c, scope))
        definition = node.child_by_field_name("definition")
        named = definition.child_by_field_name("name") if definition is not None else None
        if named is None:
            return
        own = self.text(named)
        qual = f"{scope.qualname}.{own}" if scope.qualname else own
        for i, expr in enumerate(stacked):
            below = stacked[i + 1] if i + 1 < len(stacked) else None
            self.decorated.append((expr, scope, qual, below))

    def decorator(self, expr: ts.Node, scope: Scope, todo: list[tuple[ts.Node, Scope]]) -> None:
        """A decorator is called when its definition runs: ``@d`` calls ``d``;
        ``@d(x)`` calls ``d``, then what ``d`` returns."""
        if expr.type == "identifier":
            self.pending.append(Pending(scope, "call", expr, [], via="decorator"))
        elif (accessor := self.property_accessor(expr, scope)) is not None:
            # `@debug.setter` under `def debug` of the class: a read of the
            # property, and the builtin property's own method
            self.pending.append(Pending(scope, "use", accessor[0], []))
            self.sites.append(
                Site(accessor[1], "call", binding=EXTERNAL, via="a method of property")
            )
        elif expr.type == "attribute":
            self.chain(expr, scope, "call", todo)
        elif expr.type == "call":
            todo.append((expr, scope))
            self.pending.append(Pending(scope, "call", expr, [], value=True, via="decorator"))
        else:
            todo.append((expr, scope))

    def property_accessor(self, expr: ts.Node, scope: Scope) -> tuple[ts.Node, ts.Node] | None:
        """(the property's name, the accessor's) of ``@name.setter`` (or
        ``.getter``, ``.deleter``) in a class body that defines ``name``."""
        if expr.type != "attribute" or scope.kind != "class":
            return None
        obj, attr = expr.child_by_field_name("object"), expr.child_by_field_name("attribute")
        if obj is None or attr is None or obj.type != "identifier":
            return None
        if self.text(attr) not in ("setter", "getter", "deleter"):
            return None
        bound = scope.names.get(self.text(obj))
        return (obj, attr) if bound is not None and bound.what == "def" else None

    def klass(self, node: ts.Node, scope: Scope, todo: list[tuple[ts.Node, Scope]]) -> None:
        qual = self.define(node, scope)
        if qual is None:
            return
        bases = node.child_by_field_name("superclasses")
        if bases is not None:
            for b in bases.named_children:
                head = b.child_by_field_name("value") if b.type == "subscript" else None
                if head is not None and self.generic_base(head):  # `class B(A[int])`: A
                    todo.extend((index, scope) for index in b.children_by_field_name("subscript"))
                    b = head
                if b.type == "identifier":
                    self.pending.append(Pending(scope, "inherit", b, []))
                elif b.type == "attribute":
                    self.chain(b, scope, "inherit", todo)
                else:  # metaclass=..., Generic[T]
                    todo.append((b, scope))
        body = node.child_by_field_name("body")
        if body is not None:
            todo.append((body, Scope("class", qual, scope, node=node)))

    def generic_base(self, head: ts.Node) -> bool:
        """Whether ``head[...]`` in a class's bases is a class it derives from:
        not typing's ``Generic[T]`` or ``Protocol[T]``, which define no member
        a call could reach (visited as expressions, as before)."""
        if head.type not in ("identifier", "attribute"):
            return False
        return self.text(head).rsplit(".", 1)[-1] not in ("Generic", "Protocol")

    def chain(
        self,
        node: ts.Node,
        scope: Scope,
        kind: str,
        todo: list[tuple[ts.Node, Scope]],
        via: str = "",
    ) -> None:
        """``a.b.c`` as a root and the names after it. A root that is not a
        name (a call, a subscript) is visited as an expression; ``super()``
        is kept as a root of its own."""
        segments: list[ts.Node] = []
        n = node
        while n.type == "attribute":
            attr = n.child_by_field_name("attribute")
            obj = n.child_by_field_name("object")
            if attr is None or obj is None:
                return
            segments.append(attr)
            n = obj
        segments.reverse()
        if n.type == "identifier":
            self.pending.append(Pending(scope, kind, n, segments, via=via))
            return
        if n.type == "call" and self.is_super(n):
            self.pending.append(Pending(scope, kind, n, segments, via=via))
            arguments = n.child_by_field_name("arguments")
            if arguments is not None and arguments.named_child_count:
                todo.append((arguments, scope))  # `super(tzfile, self)` reads tzfile
            return
        todo.append((n, scope))
        if via == RAISE:  # `raise make().Error`: a class or an instance, unseen: a read
            kind = "use"
        if kind in ("call", "use"):  # `make().save()`, `handlers["k"].run`: what it holds
            self.pending.append(Pending(scope, kind, n, segments, value=True))

    def is_super(self, call: ts.Node) -> bool:
        fn = call.child_by_field_name("function")
        return fn is not None and fn.type == "identifier" and self.text(fn) == "super"

    # -- imports ----------------------------------------------------------------

    def imports(self, node: ts.Node, scope: Scope) -> None:
        if node.type == "future_import_statement":
            return
        if node.type == "import_statement":
            for c in node.named_children:
                dotted, alias = (
                    (c.child_by_field_name("name"), c.child_by_field_name("alias"))
                    if c.type == "aliased_import"
                    else (c, None)
                )
                if dotted is None:
                    continue
                spec = self.text(dotted)
                last = dotted.named_children[-1] if dotted.named_children else dotted
                resolved = self.module_file(spec)
                site = Site(last, "import", module=spec, path=resolved)
                site.qualname = MODULE if resolved else None
                site.binding, site.via = (
                    (BOUND, "import of a module in the repository")
                    if resolved
                    else (EXTERNAL, f"import of {spec}, not in the repository")
                )
                if alias is not None:
                    site.alias = self.text(alias)
                    scope.bind(site.alias, Name("module", module=spec, path=resolved))
                else:  # `import a.b.c` binds `a`
                    head = spec.split(".")[0]
                    scope.bind(head, Name("module", module=head, path=self.module_file(head)))
                self.sites.append(site)
            return
        module_node = node.child_by_field_name("module_name")
        if module_node is None:
            return
        spec = self.text(module_node)
        for c in node.named_children:
            if c == module_node:
                continue
            if c.type == "wildcard_import":
                resolved = self.module_file(spec)
                if resolved:
                    self.stars.append(spec)
                site = Site(c, "import", module=spec, path=resolved)
                site.qualname = MODULE if resolved else None
                site.binding, site.via = self.import_binding(spec, resolved, "*")
                self.sites.append(site)
                continue
            dotted, alias = (
                (c.child_by_field_name("name"), c.child_by_field_name("alias"))
                if c.type == "aliased_import"
                else (c, None)
            )
            if dotted is None or dotted.type != "dotted_name":
                continue
            name = self.text(dotted)
            last = dotted.named_children[-1] if dotted.named_children else dotted
            resolved = self.resolve("python", self.path, spec, name) if self.resolve else None
            local = self.text(alias) if alias is not None else name
            module_itself = resolved is not None and resolved != self.module_file(spec)
            site = Site(last, "import", module=spec, alias=local if alias is not None else "")
            site.path = resolved
            site.qualname = (MODULE if module_itself else name) if resolved else None
            site.binding, site.via = self.import_binding(spec, resolved, name)
            self.sites.append(site)
            if module_itself:  # `from pkg import mod`: a submodule
                scope.bind(local, Name("module", module=_join(spec, name), path=resolved))
            else:
                scope.bind(local, Name("import", qualname=name, module=spec, path=resolved))

    def import_binding(self, spec: str, resolved: str | None, name: str) -> tuple[str, str]:
        if resolved:
            return BOUND, f"from {spec} import {name}"
        if spec.startswith("."):
            return CANDIDATE, f"relative import {spec} not found in the repository"
        return EXTERNAL, f"from {spec}, not in the repository"

    # -- resolution ---------------------------------------------------------------

    def lookup(self, scope: Scope, name: str) -> tuple[Name | None, Scope | None]:
        """Python's rule: the scope itself, enclosing functions (class bodies
        skipped), the module."""
        s: Scope | None = scope
        first = True
        while s is not None:
            if name in s.declared_global and s.parent is not None:
                m = s.module()
                return m.names.get(name), m
            if (first or s.kind != "class") and name in s.names:
                return s.names[name], s
            first = False
            s = s.parent
        return None, None

    def method_scope(self, scope: Scope) -> Scope | None:
        """The method a site is in (through nested lambdas and comprehensions)."""
        s: Scope | None = scope
        while s is not None and s.kind == "function":
            if s.cls is not None:
                return s
            if s.node is not None and s.node.type == "function_definition":
                return None  # a nested function: `self` is a closure variable
            s = s.parent
        return None

    def emit(self, p: Pending) -> None:
        segs = p.segments
        last = segs[-1] if segs else p.root
        kind = p.kind
        names = [self.text(s) for s in segs]
        if p.value or (p.root.type == "call" and not self.is_super(p.root)):
            # `User(...).save()`, `make()()`, `handlers["k"]()`: what the
            # expression evaluates to, then the names after it
            if not self.flow_sites(p, self.values(p.root, p.scope), names) and segs:
                self.sites.append(self.unseen(p, last, names))  # some save
            return
        if p.root.type == "call":  # super().m: the method as the bases define it
            method = self.method_scope(p.scope)
            if method is not None and method.cls is not None and len(segs) == 1:
                name = self.text(segs[0])
                self.sites.append(
                    Site(
                        last,
                        kind,
                        path=self.path,
                        qualname=f"{method.cls}.{name}",
                        binding=BOUND,
                        via=f"super() in class {method.cls}",
                    )
                )
            elif kind == "call" and segs:
                self.sites.append(Site(last, kind))
            return
        root = self.text(p.root)
        bound, where = self.lookup(p.scope, root)
        if p.via == RAISE:
            p = self.raised(p, bound)
            kind = p.kind
        if bound is None:
            if root in BUILTINS:
                if kind == "call" and (not segs or not self.stars):
                    # print(), dict.items(self), str.join(", ", xs); an `import *`
                    # may bring a module of a builtin's name (`from os import *`
                    # then `path.join()`), whose members are a file's
                    self.sites.append(Site(last, kind, binding=EXTERNAL, via="builtin"))
                elif kind == "call":
                    self.sites.append(Site(last, kind))
                elif kind == "inherit" and not segs and not self.stars and root != "object":
                    # `class Oops(Exception)`: a base outside the repository,
                    # so `super().__init__()` and an inherited `self.get()` are
                    # the platform's (query/link.py), not name matches;
                    # `class A(object)` is `class A:`, whose `self.m()` is a subclass's
                    self.sites.append(Site(last, kind, binding=EXTERNAL, via="builtin"))
                return
            if self.stars and (kind != "use" or segs or not root.startswith("__")):
                # not bound in the module: a name one of its `import *`
                # brings (read or called; not a module attribute such as
                # __file__), claimed here; the linker follows the star
                # imports (query/link.py), and a name none of them defines
                # stays a candidate
                qual = ".".join([root, *names])
                via = f"from {self.stars[0]} import *" if len(self.stars) == 1 else "import *"
                self.sites.append(
                    Site(last, kind, path=self.path, qualname=qual, binding=BOUND, via=via)
                )
            elif kind in ("call", "inherit") or segs:  # a global set elsewhere
                self.sites.append(Site(last, kind))
            return
        if bound.what in ("local", "typed"):
            # `self` where the method binds it: in the method, its lambdas and
            # comprehensions, and functions nested in it (a closure over self)
            method = where
            if (
                method is not None
                and method.cls is not None
                and root == method.receiver
                and len(names) == 1
            ):
                member = f"{method.cls}.{names[0]}"
                # a read of self.x names the class's member when it has one
                # (a method, a property, possibly inherited); the reader
                # keeps it bound only if it finds one
                if kind in ("call", "use"):
                    word = "cls" if root == "cls" else "self"
                    self.sites.append(
                        Site(
                            last,
                            kind,
                            path=self.path,
                            qualname=member,
                            binding=BOUND,
                            via=f"{word}.{names[0]} in class {method.cls}",
                        )
                    )
                return
            # `obj.attr`, `obj.save()`: what obj may hold, else some attr, some save
            found = self.values(p.root, p.scope) if segs or kind == "call" else []
            if (segs or kind == "call") and not self.flow_sites(p, found, names):
                self.sites.append(self.unseen(p, last, names))
            return
        if bound.what == "var" and (segs or kind == "call"):
            # a module-level name: what it holds (`CLIENT = Client()`); a
            # call through one the rules cannot follow names no definition
            if not self.flow_sites(p, self.values(p.root, p.scope), names):
                self.sites.append(self.unseen(p, last, names))
            return
        if bound.what == "module":
            self.module_chain(p, bound, names)
            return
        # a definition of this file, a module-level variable, or an imported symbol
        if bound.what == "import":
            path, head, module = bound.path, bound.qualname, bound.module
            if path is None:
                if kind in ("call", "inherit"):
                    binding = CANDIDATE if module.startswith(".") else EXTERNAL
                    self.sites.append(
                        Site(last, kind, module=module, binding=binding, via=f"from {module}")
                    )
                return
            via = f"imported from {module}"
        else:
            path, head, module = self.path, bound.qualname, ""
            via = (
                "defined in this module"
                if where is not None and where.parent is None
                else ("defined in an enclosing scope")
            )
        if segs:
            self.sites.append(
                Site(p.root, "use", module=module, path=path, qualname=head, binding=BOUND, via=via)
            )
        for i, name in enumerate(names[:-1]):
            if name[:1].isupper():  # `Props.Hashability.CACHED` reads the nested class too
                qual = ".".join([head, *names[: i + 1]])
                self.sites.append(
                    Site(
                        segs[i],
                        "use",
                        module=module,
                        path=path,
                        qualname=qual,
                        binding=BOUND,
                        via=via,
                    )
                )
        qual = ".".join([head, *names])
        self.sites.append(
            Site(last, kind, module=module, path=path, qualname=qual, binding=BOUND, via=via)
        )

    def unseen(self, p: Pending, last: ts.Node, names: list[str]) -> Site:
        """A reference through a value the rules cannot follow: some ``save``,
        unless it is a method called on a value of a builtin type
        (``"-".join(xs)``, ``seen = {}`` then ``seen.get(k)``), which is
        the platform's (indexer/builtins_python.py)."""
        if p.kind == "call" and len(names) == 1:
            made = builtin_type(p.root, p.scope, self.text, self.lookup)
            if made is not None:
                return Site(last, p.kind, binding=EXTERNAL, via=f"a method of {made}")
        return Site(last, p.kind)

    def raised(self, p: Pending, bound: Name | None) -> Pending:
        """``raise E`` as a call of E when the rules see a class in E: a
        definition, an import, a module's member, or a module-level name
        whose values are classes rather than instances; else a read."""
        if bound is not None and bound.what in ("def", "import", "module"):
            return p
        if bound is not None and bound.what == "var":
            found = self.values(p.root, p.scope)
            if found and not any(v.chain.endswith(chains.CALL) for v in found):
                return p
        return replace(p, kind="use", via="")

    def flow_sites(self, p: Pending, found: list[Value], names: list[str]) -> bool:
        """One site per value the reference may reach; False if there is none."""
        last = p.segments[-1] if p.segments else p.root
        written = self.text(last)
        made = False
        for v in found:
            chain = v.chain
            for i, n in enumerate(names):
                chain = chains.attr(chain, n)
                if (
                    i < len(names) - 1
                    and chain
                    and chains.length(chain) <= chains.MAX_STEPS
                    and not (n.startswith("__") and n.endswith("__"))
                ):
                    # `self.type.title()` reads `type` on the way: a reference
                    # to that attribute or property too (not `__class__`'s kind)
                    self.sites.append(
                        Site(
                            p.segments[i],
                            "use",
                            path=v.path,
                            qualname=chain,
                            binding=BOUND,
                            via=v.how or f"through {n}",
                        )
                    )
            if not chain or chains.length(chain) > chains.MAX_STEPS:
                continue
            name = last_name(chain)
            self.sites.append(
                Site(
                    last,
                    p.kind,
                    path=v.path,
                    qualname=chain,
                    binding=BOUND,
                    via=v.how or p.via or f"through {written}",
                    name=None if name == written else name,
                )
            )
            made = True
        return made

    def symbol_of(self, expr: ts.Node, scope: Scope) -> tuple[str, str, str] | None:
        """(path, qualname, how) of a name or dotted name that the rules bind to
        a definition: what a class annotation (quoted too: ``"models.User"``)
        or a constructor call names."""
        if expr.type == "string":
            quoted = forward_reference(expr, self.text)
            if quoted is None:
                return None
            head, *segs = quoted.split(".")
        else:
            segs = []
            n = expr
            while n.type == "attribute":
                attr, obj = n.child_by_field_name("attribute"), n.child_by_field_name("object")
                if attr is None or obj is None:
                    return None
                segs.append(self.text(attr))
                n = obj
            if n.type != "identifier":
                return None
            segs.reverse()
            head = self.text(n)
        bound, _where = self.lookup(scope, head)
        if bound is None:
            return None
        if bound.what == "def":
            return self.path, ".".join([bound.qualname, *segs]), "defined in this module"
        if bound.what == "import" and bound.path is not None:
            return bound.path, ".".join([bound.qualname, *segs]), f"imported from {bound.module}"
        if bound.what == "module":
            for k in range(len(segs) - 1, -1, -1):
                spec = ".".join([bound.module, *segs[:k]])
                found = bound.path if k == 0 else self.module_file(spec)
                if found is not None:
                    return found, ".".join(segs[k:]), f"module {spec}"
        return None

    def module_chain(self, p: Pending, bound: Name, names: list[str]) -> None:
        """``pkg.mod.f()`` through ``import pkg.mod``: the longest prefix of the
        chain that is a module of the repository, then the qualname in it."""
        kind = p.kind
        segs = p.segments
        if not segs:
            return  # the module object itself: its import row names it
        last = segs[-1]
        for k in range(len(names) - 1, -1, -1):
            spec = ".".join([bound.module, *names[:k]])
            path = bound.path if k == 0 else self.module_file(spec)
            if path is not None:
                rest = names[k:]
                self.sites.append(
                    Site(
                        last,
                        kind,
                        module=spec,
                        path=path,
                        qualname=".".join(rest),
                        binding=BOUND,
                        via=f"attribute of module {spec}",
                    )
                )
                if len(rest) > 1:  # `mod.Model.save`: Model is used too
                    self.sites.append(
                        Site(
                            segs[k],
                            "use",
                            module=spec,
                            path=path,
                            qualname=rest[0],
                            binding=BOUND,
                            via=f"attribute of module {spec}",
                        )
                    )
                return
        if kind in ("call", "inherit"):
            binding = CANDIDATE if bound.module.startswith(".") else EXTERNAL
            self.sites.append(
                Site(last, kind, module=bound.module, binding=binding, via=f"module {bound.module}")
            )


def _function_of(scope: Scope) -> Scope | None:
    """The def a ``return`` in ``scope`` returns from (a lambda has no return)."""
    s: Scope | None = scope
    while s is not None and s.kind == "function":
        if s.node is not None and s.node.type == "function_definition":
            return s
        s = s.parent
    return None


def _join(spec: str, name: str) -> str:
    return spec + name if spec.endswith(".") else f"{spec}.{name}"
