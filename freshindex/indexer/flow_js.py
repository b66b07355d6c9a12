"""Values in JavaScript and TypeScript, where they are cheap to read.

The same claims as Python's value flow (indexer/flow_python.py), for the
forms that need no type inference:

- ``const x = new C(); x.m()`` and ``const x = make(); x.m()``, with a
  TypeScript annotation (``const x: C = ...``) taken as the type;
- a parameter annotated with a class (``function f(c: C)``, arrow
  functions and methods too);
- ``this.x = new C()`` in any method, a field declared ``x: C;`` or
  initialized (``x = new C()``), or a constructor's parameter property
  (``constructor(private x: C)``), then ``this.x.m()``: a holder ``Cls.x``
  other files can see too;
- a value of the platform's own types (``[]``, ``new Map()``, ``s:
  string``; indexer/builtins_js.py), whose methods are ``external``;
- what a function or method returns (``return new C()``, or its return
  annotation ``(): C``, ``Promise<C>`` read as what ``await`` gives): a
  holder ``f()``, read by ``make().m()`` and ``obj.make().m()``;
- a module-level ``const`` (a holder named by itself, for importers);
- ``export default make`` (or ``export default function make``): a holder
  ``default`` that ``import x from "./m"`` claims, whatever it names ``x``;
  CommonJS's ``module.exports = make`` is the same holder, which
  ``const m = require("./m"); m()`` claims, and ``module.exports =
  require("./lib")`` passes the other module's on.

A name is looked up in its own function, then in the functions around it
(a closure; not past one that declares the name itself, and an assignment
writes the variable where it is declared), then at the top of the file;
an annotation is the variable's type, whatever is assigned to it; a
class name must be defined at the top of the file or imported from a file
of the repository. Anything else gives no claim, and the reference stays
what the tags query made it (indexer/extract.py).

Over 400 lines: one walk of the file collects every form above, and the
claims are made from what it collected; split, each part would walk again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import repeat

import tree_sitter as ts

from freshindex.indexer import builtins_js, chains
from freshindex.indexer.annotations_ts import (
    classes,
    element_class,
    function_returns,
    lookup_parts,
    promised_class,
    type_classes,
    union_members,
    value_class,
)
from freshindex.indexer.flow_python import FLOW_STEPS_FLOOR
from freshindex.indexer.guarded import Guarded
from freshindex.indexer.narrow_js import Narrowing, narrowing
from freshindex.indexer.resolve import Resolver
from freshindex.indexer.schema import Binding, EdgeKind, EdgeRow, value_row

# (name) -> (defining path, qualname) of a top-level or imported name
NameResolver = Callable[[str], "tuple[str, str] | None"]

_FUNCTIONS = frozenset(
    {
        "function_declaration",
        "function_expression",
        "arrow_function",
        "method_definition",
        "generator_function_declaration",
    }
)
# the via of a holder that is another name for a definition of the file
EXPORT_ALIAS = "export"
# where React keeps a context's value (its `_currentValue`): the holder of
# what `useContext(C)` gives, typed by `const C = createContext<T>(...)`
CONTEXT_VALUE = "_currentValue"

# an interface's or an object type alias's members whose calls return a type
_MEMBER_SIGNATURES = frozenset({"method_signature", "property_signature", "call_signature"})
_SIGNATURE_BODIES = frozenset({"interface_body", "object_type"})
_SIGNATURE_OWNERS = frozenset({"interface_declaration", "type_alias_declaration"})


def _signature_owner(node: ts.Node, text: Callable[[ts.Node], str]) -> str | None:
    """The interface or type alias whose own body holds a member signature
    (`type A = {...} & B` and `type R = {...} | {...}` too); None for one in
    an object type elsewhere (a parameter's annotation, say)."""
    body = node.parent
    if body is None or body.type not in _SIGNATURE_BODIES:
        return None
    owner = body.parent
    while owner is not None and (
        owner.type in ("intersection_type", "union_type") or _kept_by_wrapper(owner, text)
    ):
        owner = owner.parent
    if owner is None or owner.type not in _SIGNATURE_OWNERS:
        return None
    name = owner.child_by_field_name("name")
    return text(name) if name is not None else None


def type_chain(
    typed: ts.Node, text: Callable[[ts.Node], str], resolve: NameResolver
) -> tuple[str, str] | None:
    """(path, chain) of a value of a type the file can see: an instance of a
    class (``User()``), or what a member of one holds (``AppState["zoom"]``:
    ``AppState().zoom``, as a type checker reads an indexed access)."""
    named, keys = lookup_parts(typed, text) or (typed, [])
    found = resolve(text(named))
    if found is None:
        return None
    chain = found[1] + chains.CALL
    for key in keys:
        chain = chains.attr(chain, key)
    return found[0], chain


def _context_type(value: ts.Node, text: Callable[[ts.Node], str]) -> list[ts.Node]:
    """The classes ``createContext<T>(...)`` (``React.createContext``) is
    given as its type argument: what its context holds."""
    if value.type != "call_expression":
        return []
    fn, types = value.child_by_field_name("function"), value.child_by_field_name("type_arguments")
    if fn is None or types is None or types.named_child_count != 1:
        return []
    if text(fn).rpartition(".")[2] != "createContext":
        return []
    return type_classes(types.named_children[0], text)


def _kept_by_wrapper(node: ts.Node, text: Callable[[ts.Node], str]) -> bool:
    """Whether ``node`` is ``Readonly<...>``, ``Partial<...>`` or
    ``Required<...>`` (or its type arguments), which keep an object type's
    members as the alias's."""
    if node.type == "type_arguments":
        node = node.parent if node.parent is not None else node
    name = node.child_by_field_name("name") if node.type == "generic_type" else None
    return name is not None and text(name) in ("Readonly", "Partial", "Required")


# levels of syntax and names a value is followed through: a call in a chain
# costs two (the call, its member), as it costs two steps of the chain, so a
# builder chain as long as a chain may be (chains.MAX_STEPS) still ends
# with a few names to spare (`const r = new B().url(u).build(); r.m()`)
MAX_DEPTH = chains.MAX_STEPS + 4
MAX_VALUES = 4


@dataclass(frozen=True)
class Claim:
    path: str
    chain: str
    via: str
    # an instance of what the code states (an annotation's type, `new C()`),
    # not what a function returns, which the linker may not follow
    made: bool = False


@dataclass
class Flows:
    """By the (1-based line, column) of a called member's name: what it
    names, one claim, or several for a value that may be any of them (`a: A
    | B`: a row for each, as Python's value flow writes them)."""

    calls: dict[tuple[int, int], list[Claim]] = field(default_factory=dict)
    # the same for a member used as a value (`app.get("/", users.list)`)
    uses: dict[tuple[int, int], list[Claim]] = field(default_factory=dict)
    # (holder, claim, node where the value is written)
    holders: list[tuple[str, Claim, ts.Node]] = field(default_factory=list)
    # (module spec, node): `module.exports = require(spec)`
    reexports: list[tuple[str, ts.Node]] = field(default_factory=list)


class _Pass:
    def __init__(
        self,
        text: Callable[[ts.Node], str],
        resolve: NameResolver,
        members: bool = False,
        outside: Callable[[str], str | None] = lambda _name: None,
    ):
        self.text = text
        self.want_members = members  # a member used as a value asks (flows' `used`)
        self.resolve = resolve
        # a class imported from a package outside the repository, spelled
        # with its module (`pg.Client`): its instances' methods are that package's
        self.outside = outside
        # (function start byte or -1 for the file, name) -> values written to it
        self.locals: dict[tuple[int, str], list[tuple[ts.Node, int, str | None]]] = {}
        self.returns: list[tuple[str, ts.Node, int, str | None]] = []
        self.attributes: list[tuple[str, ts.Node, int, str | None]] = []
        # a class's getters (`get req(): Req`): reading the member runs it
        self.getters: list[tuple[str, ts.Node]] = []
        # a top-level object's keys naming a function or class of the file
        # (`export const Jwt = { sign, verify }`): what `Jwt.sign` holds
        self.named_keys: list[tuple[str, ts.Node]] = []
        self.calls: list[tuple[ts.Node, int, str | None]] = []
        # every `a.b` with a name before the dot, for the ones used as values
        self.members: list[tuple[ts.Node, int, str | None]] = []
        # `export default make` (a name of the file): what `import x from` gets;
        # CommonJS's `module.exports = make` too
        self.defaults: list[tuple[str, ts.Node]] = []
        # `export { Hono as HonoBase }`: (alias, name, where)
        self.aliases: list[tuple[str, str, ts.Node]] = []
        # `module.exports = require("./lib/app")`: that module's default, by spec
        self.reexports: list[tuple[str, ts.Node]] = []
        # `const m = require("./m")` at the top of the file: m is that module
        self.required: set[str] = set()
        # every parameter's name, in any function: a name that may hide one of the file's
        self.parameter_names: set[str] = set()
        # holders a TypeScript annotation types: a field (`c: C;`), a
        # constructor's parameter property (`private c: C`), a return (`(): C`)
        self.typed: list[tuple[str, ts.Node]] = []
        # holders annotated with a global type (`label: string;`): (holder, type, where)
        self.builtin_typed: list[tuple[str, str, ts.Node]] = []
        # (function start byte or -1, name) -> the class its elements are
        # annotated to be (`cs: C[]`, `Array<C>`), for `for (const c of cs)`
        self.elements: dict[tuple[int, str], ts.Node] = {}
        # a local's or parameter's annotated mapping (`m: Map<K, C>`, `r:
        # Record<K, C>`): the class of its values; a promise's (`p: Promise<C>`)
        self.mapped: dict[tuple[int, str], ts.Node] = {}
        self.promised: dict[tuple[int, str], ts.Node] = {}
        # a name's values, once evaluated: names given each other would
        # otherwise be walked once per path through them
        self.memo: dict[tuple[int, str], list[Claim]] = {}
        self.steps_left = FLOW_STEPS_FLOOR  # and one per byte, once walked
        # names some function declares (a parameter, a local), which may not be
        # the file's top-level name there: set once the walk is done
        self.hidden: frozenset[str] = frozenset()
        # function (start byte) -> the function around it (-1: the file), and
        # the names each function declares (parameters, locals): a closure
        # reads a name of the function around it unless it declares its own
        self.outer: dict[int, int] = {}
        self.class_of: dict[int, str | None] = {}  # function -> the class `this` is of
        self.declared: dict[int, set[str]] = {}
        # name -> the spans `instanceof` tests narrow it in: the test, its function
        self.narrowed: dict[str, Guarded[tuple[Narrowing, int]]] = {}
        # `xs.push(v)`: (function, name, the value, class); by holder once asked
        self.pushes: list[tuple[int, str, ts.Node, str | None]] = []
        self.pushed: dict[tuple[int, str], list[tuple[ts.Node, int, str | None]]] | None = None

    def named_by(self, function: ts.Node, outer: int, cls: str | None, enclosing: str) -> str:
        """The name an unnamed function is defined under, as the tags query
        names it: the top-level ``const`` it is the value of, or one in an
        unnamed function the query names as if at the top (a test's
        ``describe(() => { const makeApp = () => ... })``), or the class field
        (``body = (data: D): Response => ...``, a method); else "".
        ``enclosing``: the name of the function around it ("" for none)."""
        holder = function.parent
        if holder is None:
            return ""
        name = holder.child_by_field_name("name")
        if name is None:
            return ""
        if holder.type == "variable_declarator" and name.type == "identifier":
            own = self.text(name)
            if outer == -1:
                return own
            found = self.resolve(own) if not enclosing else None
            if found is not None and found[1] == own:
                return own
        if holder.type == "public_field_definition" and cls is not None:
            return f"{cls}.{self.text(name)}"
        return ""

    def walk(self, root: ts.Node) -> None:
        # node, enclosing function (start byte, -1: the file), its qualname, class
        todo: list[tuple[ts.Node, int, str, str | None]] = [(root, -1, "", None)]
        while todo:
            node, fn, qual, cls = todo.pop()
            t = node.type
            if t == "class_declaration" or t == "class":
                name = node.child_by_field_name("name")
                cls = self.text(name) if name is not None else None
            elif t in _FUNCTIONS:
                name = node.child_by_field_name("name")
                self.outer[node.start_byte] = fn
                fn = node.start_byte
                self.class_of[fn] = cls
                if name is not None and t != "arrow_function":
                    own = self.text(name)
                    qual = f"{cls}.{own}" if t == "method_definition" and cls else own
                else:  # `const make = (): Repo => ...` at the top: the function `make`
                    qual = self.named_by(node, self.outer[fn], cls, qual)
                self.parameters(node, fn, cls if qual == f"{cls}.constructor" else None)
                if qual:
                    for each in classes(node.child_by_field_name("return_type"), self.text, True):
                        self.typed.append((chains.holder_of_return(qual), each))
                if (
                    qual
                    and t == "method_definition"
                    and any(c.type == "get" for c in node.children)
                ):
                    self.getters.append((qual, node))
                body = node.child_by_field_name("body")
                if (
                    qual
                    and t == "arrow_function"
                    and body is not None
                    and body.type != "statement_block"
                ):
                    # `const useApp = () => useContext(AppContext)`: the body is its return
                    self.returns.append((chains.holder_of_return(qual), body, fn, cls))
            elif t in _MEMBER_SIGNATURES and (owner := _signature_owner(node, self.text)):
                # `interface Repo { find(): User }`, `type Ky = {get: (u) => Res}`:
                # what calling the member returns, as a method's return annotation
                # `{ (url: string): Res }`: calling the value itself, as Python's __call__
                name = node.child_by_field_name("name")
                member = self.text(name) if name is not None else chains.CALLED_ITSELF
                if t == "property_signature":
                    kind = node.child_by_field_name("type")
                    returned = function_returns(kind, self.text)
                    types = [returned] if returned is not None else []
                    if returned is None and name is not None:
                        # `repo: Repo`, `users: User[]`, `label: string`: what
                        # the member holds, as a class's typed field
                        held = classes(kind, self.text)
                        self.typed_field(f"{owner}.{member}", kind, held)
                        if not held and (made := self.global_type(kind)):
                            self.builtin_typed.append((f"{owner}.{member}", made, node))
                else:  # `find(): User | Admin`: either, as a method's return
                    types = classes(node.child_by_field_name("return_type"), self.text, True)
                holder = chains.holder_of_return(f"{owner}.{member}")
                self.typed.extend((holder, returned) for returned in types)
            elif t == "public_field_definition" and cls is not None:
                # a field whose value is a function is a method: its annotation
                # (`header: SetHeaders = (...) => ...`) types its calls, not a value
                name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
                kind = node.child_by_field_name("type")
                types = classes(kind, self.text)
                if value is not None and value.type in _FUNCTIONS:
                    types = []
                field = f"{cls}.{self.text(name)}" if name is not None else None
                if field is not None:  # `repo: Repo`, `m: Map<K, V>`, `a: A | B`
                    self.typed_field(field, kind, types)
                if field is not None and not types:
                    if value is not None and value.type not in _FUNCTIONS:
                        # `cache = new Map()`, `repo = new Repo()`: as `this.x = ...`
                        self.attributes.append((field, value, fn, cls))
                    elif value is None and (made := self.global_type(kind)):
                        self.builtin_typed.append((field, made, node))  # `label: string;`
            elif t == "variable_declarator":
                name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
                types = classes(node.child_by_field_name("type"), self.text)
                if name is not None and name.type == "identifier":
                    target = (fn, self.text(name))
                    self.declared.setdefault(fn, set()).add(target[1])
                    if fn == -1 and value is not None and required_spec(value, self.text):
                        self.required.add(target[1])
                    if fn == -1 and value is not None:  # createContext<AppState>(...)
                        for typed in _context_type(value, self.text):
                            self.typed.append((f"{target[1]}.{CONTEXT_VALUE}", typed))
                    if fn == -1 and value is not None:  # `export const Jwt = { sign }`
                        self.object_keys(target[1], value)
                    element = element_class(node.child_by_field_name("type"), self.text)
                    if element is not None:
                        self.elements[target] = element
                    self.annotated_contents(target, node.child_by_field_name("type"))
                    kind = node.child_by_field_name("type")
                    if types:
                        self.locals.setdefault(target, []).extend((t, fn, "type") for t in types)
                    elif kind is not None and self.global_type(kind) is not None:
                        self.locals.setdefault(target, []).append((kind, fn, BUILTIN_TYPE))
                    elif value is not None:
                        self.locals.setdefault(target, []).append((value, fn, cls))
            elif t == "assignment_expression":
                left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
                if left is not None and right is not None:
                    if left.type == "identifier":
                        self.locals.setdefault((fn, self.text(left)), []).append((right, fn, cls))
                    elif fn == -1 and "".join(self.text(left).split()) == "module.exports":
                        self.module_exports(right)
                    elif left.type == "member_expression" and cls is not None:
                        obj, prop = (
                            left.child_by_field_name("object"),
                            left.child_by_field_name("property"),
                        )
                        if obj is not None and obj.type == "this" and prop is not None:
                            holder = f"{cls}.{self.text(prop)}"
                            self.attributes.append((holder, right, fn, cls))
            elif t == "for_in_statement" and any(c.type == "of" for c in node.children):
                left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
                if left is not None and left.type == "identifier" and right is not None:
                    self.locals.setdefault((fn, self.text(left)), []).append((right, fn, "of"))
                    if any(c.type in ("const", "let", "var") for c in node.children):
                        self.declared.setdefault(fn, set()).add(self.text(left))
            elif t == "return_statement" and qual and node.named_children:
                self.returns.append(
                    (chains.holder_of_return(qual), node.named_children[0], fn, cls)
                )
            elif (
                t == "export_statement"
                and fn == -1
                and any(c.type == "default" for c in node.children)
            ):
                named = node.child_by_field_name("declaration")
                named = (
                    named.child_by_field_name("name")
                    if named is not None
                    else node.child_by_field_name("value")
                )
                if named is not None and named.type in ("identifier", "type_identifier"):
                    self.defaults.append((self.text(named), named))
            elif (
                t == "export_statement" and fn == -1 and node.child_by_field_name("source") is None
            ):
                self.export_aliases(node)
            elif t == "call_expression":
                callee = node.child_by_field_name("function")
                if callee is not None and callee.type == "member_expression":
                    self.calls.append((callee, fn, cls))
                    self.element_calls(node, callee, fn, cls)
            elif t == "member_expression" and self.want_members:
                self.members.append((node, fn, cls))
            elif t == "binary_expression" and (narrows := narrowing(node, self.text)):
                guarded = self.narrowed.setdefault(narrows.name, Guarded())
                for start, end in narrows.spans:
                    guarded.add(start, end, (narrows, fn))
            children = node.named_children
            if children:  # most nodes are leaves; zip without a generator frame
                todo.extend(zip(reversed(children), repeat(fn), repeat(qual), repeat(cls)))

    def export_aliases(self, statement: ts.Node) -> None:
        """``export { Hono as HonoBase }``: the file's ``HonoBase`` is its
        ``Hono``, for whoever imports it (a holder the linker's find reads)."""
        for clause in statement.named_children:
            if clause.type != "export_clause":
                continue
            for spec in clause.named_children:
                name, alias = spec.child_by_field_name("name"), spec.child_by_field_name("alias")
                if name is not None and alias is not None and name.type == "identifier":
                    self.aliases.append((self.text(alias), self.text(name), spec))

    def settle(self) -> None:
        """Move what a function assigns to a name it does not declare (``x =
        make()`` in ``init()``) to the function around it that does, or to
        the file: the variable it writes."""
        for fn, name in [k for k in self.locals if k[0] != -1]:
            if name in self.declared.get(fn, ()):
                continue
            outer = self.outer.get(fn, -1)
            while outer != -1 and name not in self.declared.get(outer, ()):
                outer = self.outer.get(outer, -1)
            self.locals.setdefault((outer, name), []).extend(self.locals.pop((fn, name)))

    def holder(self, fn: int, name: str) -> tuple[int, str] | None:
        """Where ``name`` read in function ``fn`` is written: that function's
        local, else one of the functions around it (a closure), else the
        file's; None when a function on the way declares the name with no
        value followed (an untyped parameter)."""
        while fn != -1:
            if (fn, name) in self.locals:
                return fn, name
            if name in self.declared.get(fn, ()):
                return None
            fn = self.outer.get(fn, -1)
        return -1, name

    def module_exports(self, value: ts.Node) -> None:
        """CommonJS's ``module.exports = createApp`` (also the inner one of
        ``exports = module.exports = createApp``) exports a name of the file
        as the module's default, what ``require("./m")()`` calls;
        ``module.exports = require("./lib/app")`` passes that module's on."""
        if value.type == "identifier":
            self.defaults.append((self.text(value), value))
        elif value.type == "class" and (named := value.child_by_field_name("name")) is not None:
            self.defaults.append((self.text(named), named))  # = class Application {...}
        elif (spec := required_spec(value, self.text)) is not None:
            self.reexports.append((spec, value))

    def package_call(self, name: str, fn: int, call: ts.Node, member: str = "") -> str | None:
        """What calling a function of a package outside the repository
        makes (``express()``, ``express.Router()``, ``v4()`` of "uuid"), as
        that package's type: given nothing of the repository's, it returns
        nothing of the repository's. Called with a name or a function
        (``reactive(user)``, ``produce(state, fn)``), it may hand one back:
        None. Not a name some function around declares (``function f(express)``)."""
        package = self.outside(name) if self.holder(fn, name) == (-1, name) else None
        args = call.child_by_field_name("arguments")
        if package is None or args is None or not all(map(_plain, args.named_children)):
            return None
        return f"{package}.{member}()" if member else f"{package}()"

    def returned(
        self, head: ts.Node, fn: int, cls: str | None, depth: int, call: ts.Node
    ) -> list[Claim]:
        """What ``obj.make()`` returns: read from the holder of the method's
        return, or a global type's own (``s.trim()`` is a String)."""
        obj, prop = head.child_by_field_name("object"), head.child_by_field_name("property")
        if obj is None or prop is None:
            return []
        spelled = chains.spelled(self.text(head))  # `this\n  .repo.make`
        if self.text(prop) == "get" and (got := self.mapped_claim(f"{spelled}()", obj, fn)):
            return got  # byId.get(k) of `byId: Map<string, User>`
        if self.text(prop) in _ELEMENT_OF and (got := self.element_claim("", obj, fn, depth + 1)):
            return got  # users.find(...), users.at(-1): an element
        if obj.type == "identifier" and self.resolve(self.text(obj)) is None:
            made = builtins_js.static(self.text(obj), self.text(prop)) or self.package_call(
                self.text(obj), fn, call, self.text(prop)
            )  # Object.keys(o), express.Router()
            # not a local of that name, unless it is the file's `require` of it
            key = self.holder(fn, self.text(obj))
            required = key == (-1, self.text(obj)) and key[1] in self.required
            if made is not None and key is not None and (key not in self.locals or required):
                return [Claim("", chains.BUILTIN + made, f"{spelled}()")]
        out = []
        for c in self.values(obj, fn, cls, depth + 1):
            if c.chain.startswith(chains.BUILTIN):
                made = builtins_js.result(c.chain[len(chains.BUILTIN) :], self.text(prop))
                if made is not None:
                    out.append(Claim("", chains.BUILTIN + made, f"{spelled}()"))
            elif chains.length(c.chain) + 1 < chains.MAX_STEPS:
                out.append(
                    Claim(
                        c.path, chains.attr(c.chain, self.text(prop)) + chains.CALL, f"{spelled}()"
                    )
                )
        return out

    def narrowed_at(self, name: str, node: ts.Node, fn: int) -> list[Claim]:
        """An instance of the class the innermost ``instanceof`` test around
        ``node`` in the same function proves ``name`` is; [] where none does."""
        found = self.narrowed[name].innermost(node.start_byte)
        if found is None or found[1] != fn:
            return []
        cls = found[0].cls
        return [
            Claim(c.path, c.chain, f"{name} instanceof {self.text(cls)}", c.made)
            for c in self.typed_claim(name, cls)
        ]

    def object_keys(self, name: str, value: ts.Node) -> None:
        """What the keys of a top-level object hold (`export const Jwt = {
        sign, verify: check, repo: new Repo() }`), as its properties' holders
        (`Jwt.sign`), read by `Jwt.sign()` in any file."""
        if value.type in ("as_expression", "satisfies_expression") and value.named_children:
            value = value.named_children[0]
        if value.type != "object":
            return
        for key in value.named_children:
            if key.type == "shorthand_property_identifier":
                self.named_keys.append((f"{name}.{self.text(key)}", key))
                continue
            written, held = key.child_by_field_name("key"), key.child_by_field_name("value")
            if key.type != "pair" or written is None or held is None:
                continue
            if written.type != "property_identifier" or held.type in _FUNCTIONS:
                continue  # a method of the object: a definition of its own
            holder = f"{name}.{self.text(written)}"
            if held.type == "identifier":
                self.named_keys.append((holder, held))
            else:
                self.attributes.append((holder, held, -1, None))

    def used_context(self, call: ts.Node, head: ts.Node | None) -> list[Claim]:
        """``useContext(AppContext)`` (or ``React.useContext``) of a context
        the file defines or imports: what its ``createContext<T>()`` holds."""
        if head is None or head.end_byte - head.start_byte > len("React.useContext"):
            return []
        written = self.text(head)
        if written.rpartition(".")[2] != "useContext" or self.resolve(written) is not None:
            return []  # a function of the repository's own of that name
        args = call.child_by_field_name("arguments")
        given = args.named_children if args is not None else []
        if len(given) != 1 or given[0].type != "identifier":
            return []
        found = self.resolve(self.text(given[0]))
        if found is None or not found[0]:
            return []
        how = f"useContext({self.text(given[0])})"
        return [Claim(found[0], chains.attr(found[1], CONTEXT_VALUE), how)]

    def typed_claim(self, name: str, typed: ts.Node) -> list[Claim]:
        """An instance of the class a type names (``name: C``), if the file
        can see it."""
        found = type_chain(typed, self.text, self.resolve)
        how = f"{name}: {self.text(typed)}" if name else f"as {self.text(typed)}"
        if found is None:  # `m: Map<K, V>`, unless the file has a Map of its own
            made = self.outside(self.text(typed)) or builtins_js.named(self.text(typed))
            return [Claim("", chains.BUILTIN + made, how)] if made is not None else []
        return [Claim(found[0], found[1], how, made=True)]

    def annotated_contents(self, target: tuple[int, str], annotation: ts.Node | None) -> None:
        """A mapping's or a promise's annotation on a local or a parameter."""
        mapped = value_class(annotation, self.text)
        if mapped is not None:
            self.mapped[target] = mapped
        promised = promised_class(annotation, self.text)
        if promised is not None:
            self.promised[target] = promised

    def mapped_claim(self, name: str, mapping: ts.Node, fn: int) -> list[Claim]:
        """A value of a local or parameter annotated as a mapping of a class."""
        if mapping.type != "identifier":
            return []
        key = self.text(mapping)
        typed = self.mapped.get((fn, key)) or self.mapped.get((-1, key))
        return self.typed_claim(name, typed) if typed is not None else []

    def resolved_claim(
        self, name: str, promise: ts.Node, fn: int, cls: str | None, depth: int
    ) -> list[Claim]:
        """What a promise resolves to: of a name annotated ``Promise<C>``, or
        of a call, whose annotated ``Promise<C>`` return is held as a C."""
        if promise.type == "identifier":
            key = self.text(promise)
            typed = self.promised.get((fn, key)) or self.promised.get((-1, key))
            return self.typed_claim(name, typed) if typed is not None else []
        if promise.type == "call_expression":  # a global type there is the promise itself
            found = self.values(promise, fn, cls, depth)
            return [c for c in found if not c.chain.startswith(chains.BUILTIN)]
        return []

    def element_calls(self, call: ts.Node, callee: ts.Node, fn: int, cls: str | None) -> None:
        """``xs.push(v)``: ``v`` is an element of ``xs``; ``xs.forEach((x)
        => ...)`` (``map``, ``filter``, ``find``...): the callback's first
        parameter is one."""
        obj, prop = callee.child_by_field_name("object"), callee.child_by_field_name("property")
        args = call.child_by_field_name("arguments")
        if obj is None or prop is None or args is None or not args.named_children:
            return
        method = self.text(prop)
        if method in _ADDS and obj.type == "identifier":
            for value in args.named_children:
                if value.type != "spread_element":
                    self.pushes.append((fn, self.text(obj), value, cls))
            return
        if method in _ADDS and (field := self.this_field(obj, cls)) is not None:
            for value in args.named_children:  # this.items.push(v): the holder's elements
                if value.type != "spread_element":
                    self.attributes.append((f"{field}.{chains.ELEMENT}", value, fn, cls))
            return
        callback = args.named_children[0]
        if method not in (*_ELEMENT_CALLBACKS, *_CALLBACK_GIVES) or callback.type not in _FUNCTIONS:
            return
        params = callback.child_by_field_name("parameters")
        first = params.named_children[0] if params is not None and params.named_children else None
        if first is None and callback.type == "arrow_function":  # `u => u.save()`
            first = callback.child_by_field_name("parameter")
        if first is not None and first.type == "required_parameter":
            first = first.child_by_field_name("pattern")
        if first is not None and first.type == "identifier":
            context = _CALLBACK_GIVES.get(method, "of")
            self.locals.setdefault((callback.start_byte, self.text(first)), []).append(
                (obj, fn, context)
            )

    def element_claim(self, name: str, iterated: ts.Node, fn: int, depth: int = 0) -> list[Claim]:
        """An element of what ``iterated`` holds (``for (const name of xs)``,
        a callback's parameter, ``xs[0]``, ``xs.find(...)``): of a local or
        parameter annotated as an array of a class, of an array literal, of
        what a local is given or has pushed onto it, through ``filter``,
        ``slice`` or ``sort``."""
        self.steps_left -= 1
        if depth > MAX_DEPTH or self.steps_left < 0:
            return []
        t = iterated.type
        if t == "array":  # for (const h of [a, b])
            return [
                c
                for e in iterated.named_children
                if e.type != "spread_element"
                for c in self.values(e, fn, None, depth + 1)
            ]
        if t == "call_expression":  # xs.filter(...): the same elements
            head = iterated.child_by_field_name("function")
            obj = head.child_by_field_name("object") if head is not None else None
            prop = head.child_by_field_name("property") if head is not None else None
            if obj is not None and prop is not None and self.text(prop) in _SAME_ELEMENTS:
                return self.element_claim(name, obj, fn, depth + 1)
            if obj is not None and prop is not None and self.text(prop) == "values":
                return self.mapped_claim(name, obj, fn)  # for (const u of byId.values())
            return []
        if t == "member_expression":  # this.items, store.items: the holder's `.[]`
            return [
                Claim(c.path, each, c.via)
                for c in self.values(iterated, fn, self.class_of.get(fn), depth + 1)
                if not c.chain.startswith(chains.BUILTIN)
                and (each := chains.element(c.chain)) is not None
            ]
        if t != "identifier":
            return []
        key = self.text(iterated)
        element = self.elements.get((fn, key)) or self.elements.get((-1, key))
        if element is not None:
            return self.typed_claim(name, element)
        held = self.holder(fn, key)
        if held is None:
            return []
        out: list[Claim] = []
        for value, where, context in self.locals.get(held, [])[: MAX_VALUES + 1]:
            if context not in (*_ANNOTATED, *_GIVEN):  # const ys = [...], ys = xs.filter(...)
                out.extend(self.element_claim(name, value, where, depth + 1))
        for value, where, cls in self.pushed_onto(held)[: MAX_VALUES + 1]:
            out.extend(self.values(value, where, cls, depth + 1))
        return list(dict.fromkeys(out))

    def global_object(self, name: str) -> str | None:
        """The browser's object a name the file neither declares nor imports
        reads (``document``: a Document)."""
        made = builtins_js.GLOBAL_OBJECTS.get(name)
        if made is None or name in self.hidden or self.resolve(name) is not None:
            return None
        return made

    def global_call(self, head: ts.Node, fn: int) -> str | None:
        """The global type a global function's call gives, awaited
        (``fetch(url)``: a Response), unless the file has the name itself."""
        if head.type != "identifier":
            return None
        name = self.text(head)
        made = builtins_js.called(name)
        if made is None or name in self.hidden or self.holder(fn, name) != (-1, name):
            return None
        return None if (-1, name) in self.locals else made

    def typed_field(self, field: str, kind: ts.Node | None, types: list[ts.Node]) -> None:
        """What a field or member annotated ``kind`` holds: ``types``, the
        classes it names (`repo: Repo`, either of `a: A | B`), the elements of
        `items: User[]` and the values of `byId: Map<string, User>`."""
        self.typed.extend((field, typed) for typed in types)
        element = element_class(kind, self.text)
        if element is not None:  # `items: User[] = []`
            self.typed.append((f"{field}.{chains.ELEMENT}", element))
        mapped = value_class(kind, self.text)
        if mapped is not None:  # `byId: Map<string, User>`
            self.typed.append((f"{field}.{chains.ITEM}", mapped))

    def global_type(self, annotation: ts.Node | None) -> str | None:
        """The global type an annotation names (builtins_js.annotated), unless
        the file defines or imports the name (hono's own `Set<E>` type)."""
        return builtins_js.annotated(annotation, self.text, lambda n: self.resolve(n) is not None)

    def this_field(self, node: ts.Node, cls: str | None) -> str | None:
        """The holder ``Cls.items`` of ``this.items`` in a class."""
        if cls is None or node.type != "member_expression":
            return None
        obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
        if obj is None or prop is None or obj.type != "this":
            return None
        return f"{cls}.{self.text(prop)}"

    def pushed_onto(self, held: tuple[int, str]) -> list[tuple[ts.Node, int, str | None]]:
        if self.pushed is None:  # once the walk is over, every push is known
            self.pushed = {}
            for fn, name, value, cls in self.pushes:
                key = self.holder(fn, name)
                if key is not None:
                    self.pushed.setdefault(key, []).append((value, fn, cls))
        return self.pushed.get(held, [])

    def parameters(self, function: ts.Node, fn: int, constructor_of: str | None) -> None:
        """A parameter annotated with a class (``c: C``) holds an instance of
        it; in a constructor, one with ``private``/``public``/``readonly``
        is also the field ``this.c``."""
        params = function.child_by_field_name("parameters")
        declared = self.declared.setdefault(fn, set())
        for param in params.named_children if params is not None else []:
            if param.type == "identifier":  # JavaScript's `function f(api)`
                self.parameter_names.add(self.text(param))
                declared.add(self.text(param))
            if param.type not in ("required_parameter", "optional_parameter"):
                continue
            pattern = param.child_by_field_name("pattern")
            if pattern is not None and pattern.type == "identifier":
                self.parameter_names.add(self.text(pattern))
                declared.add(self.text(pattern))
            pattern = param.child_by_field_name("pattern")
            types = classes(param.child_by_field_name("type"), self.text)
            if pattern is None or pattern.type != "identifier":
                continue
            name = self.text(pattern)
            element = element_class(param.child_by_field_name("type"), self.text)
            if element is not None:
                self.elements[(fn, name)] = element
            self.annotated_contents((fn, name), param.child_by_field_name("type"))
            kind = param.child_by_field_name("type")
            if not types and kind is not None and self.global_type(kind):
                self.locals.setdefault((fn, name), []).append((kind, fn, BUILTIN_TYPE))
            self.locals.setdefault((fn, name), []).extend((t, fn, "type") for t in types)
            if constructor_of is not None and any(
                c.type in ("accessibility_modifier", "readonly") for c in param.children
            ):
                self.typed.extend((f"{constructor_of}.{name}", t) for t in types)

    def values(self, node: ts.Node, fn: int, cls: str | None, depth: int = 0) -> list[Claim]:
        self.steps_left -= 1
        if depth > MAX_DEPTH or self.steps_left < 0:
            return []
        t = node.type
        if (made := builtins_js.literal(node)) is not None:  # [], "a", `x${y}`
            return [Claim("", chains.BUILTIN + made, f"a {made}")]
        if t in ("new_expression", "call_expression"):
            head = node.child_by_field_name("constructor" if t == "new_expression" else "function")
            if t == "call_expression" and (provided := self.used_context(node, head)):
                return provided
            if t == "call_expression" and head is not None and head.type == "member_expression":
                # obj.make(): what the method returns, read from its holder
                return self.returned(head, fn, cls, depth, node)
            if head is None or not _named(head):
                return []
            found = self.resolve(self.text(head))
            made = None
            if found is None and t == "new_expression":  # `new Client()` of "pg", `new Map()`
                made = self.outside(self.text(head)) or builtins_js.named(self.text(head))
            if made is not None:
                return [Claim("", chains.BUILTIN + made, f"new {self.text(head)}()")]
            if found is None and (package := self.package_call(self.text(head), fn, node)):
                return [Claim("", chains.BUILTIN + package, f"{self.text(head)}()")]
            if found is None and t == "call_expression" and (made := self.global_call(head, fn)):
                return [Claim("", chains.BUILTIN + made, f"{self.text(head)}()")]  # fetch()
            if found is None:
                return []
            if self.text(head) in self.required and found[0]:  # `m()`: what m exports
                found = (found[0], DEFAULT)
            word = "new " if t == "new_expression" else ""
            made_here = t == "new_expression"
            return [
                Claim(found[0], found[1] + chains.CALL, f"{word}{self.text(head)}()", made_here)
            ]
        if t == "this" and cls is not None:
            return [Claim("", cls + chains.CALL, f"this is a {cls}")]
        if t in ("as_expression", "type_assertion") and node.named_child_count == 2:
            # `x as C`, `<C>x`: a C, as a type checker reads it
            typed = node.named_children[1 if t == "as_expression" else 0]
            if typed.type == "type_arguments" and typed.named_child_count == 1:
                typed = typed.named_children[0]
            return self.typed_claim("", typed) if typed.type == "type_identifier" else []
        if t == "subscript_expression" and (obj := node.child_by_field_name("object")):
            # byId[k] of `byId: Record<string, User>`, else users[0]
            return self.mapped_claim(f"{self.text(obj)}[k]", obj, fn) or self.element_claim(
                "", obj, fn, depth + 1
            )
        if t == "non_null_expression" and node.named_children:  # `this.c!`
            return self.values(node.named_children[0], fn, cls, depth + 1)
        if t == "ternary_expression":  # `ok ? new A() : new B()`: either, if both are known
            branches = [node.child_by_field_name(part) for part in ("consequence", "alternative")]
            either = [self.values(b, fn, cls, depth + 1) if b else [] for b in branches]
            return either[0] + either[1] if all(either) else []
        if t in ("parenthesized_expression", "await_expression") and node.named_children:
            # `await make()`: a return annotated Promise<C> is held as a C
            return self.values(node.named_children[0], fn, cls, depth + 1)
        if t == "member_expression":
            obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
            if obj is None or prop is None:
                return []
            name = self.text(prop)
            read: list[Claim] = []
            for c in self.values(obj, fn, cls, depth + 1):
                if not c.chain.startswith(chains.BUILTIN):
                    read.append(Claim(c.path, chains.attr(c.chain, name), c.via))
                elif made := builtins_js.property_of(c.chain[len(chains.BUILTIN) :], name):
                    # `res.headers` is a Headers; any other property of a global's
                    # value (`err.cause`) may be anything
                    read.append(Claim("", chains.BUILTIN + made, self.text(node)))
            return read
        if t != "identifier":
            return []
        name = self.text(node)
        if name in self.narrowed and (narrowed := self.narrowed_at(name, node, fn)):
            return narrowed
        key = self.holder(fn, name)
        if key is None:
            return []  # a name the function declares without a value to follow
        if key == (-1, name) and key not in self.locals and (made := self.global_object(name)):
            return [Claim("", chains.BUILTIN + made, name)]  # document, window
        if key not in self.locals:
            if not depth or name in self.hidden:
                return []
            # a class or function the file defines or imports, inside a value:
            # `t = Store.create()` holds what the method returns (a call on the
            # name itself, `Store.create()`, is read by flows())
            found = self.resolve(name)
            return [Claim(found[0], found[1], name)] if found else []
        if key in self.memo:  # also ends a cycle (`a = b`, `b = a`): [] while in progress
            return self.memo[key]
        self.memo[key] = []
        written = self.locals[key]
        if any(context in _ANNOTATED for _v, _w, context in written):
            # `let e: C; e = make()`: the annotation, as a type checker reads it
            written = [w for w in written if w[2] in _ANNOTATED]
        out: list[Claim] = []
        unknown = False  # a value written that gives nothing to follow
        for value, where, context in written[: MAX_VALUES + 1]:
            if context == "type":  # const x: C = ...
                out.extend(self.typed_claim(name, value))
                continue
            if context == BUILTIN_TYPE:  # const xs: string[] = ...
                made = self.global_type(value)
                how = f"{name}{self.text(value)}"
                out.extend([Claim("", chains.BUILTIN + made, how)] if made is not None else [])
                continue
            if context == "of":  # for (const c of cs), cs.forEach((c) => ...): an element
                out.extend(self.element_claim(name, value, where, depth + 1))
                continue
            if context == _EACH_VALUE:  # byId.forEach((u) => ...): a value, else an element
                got = self.mapped_claim(name, value, where)
                out.extend(got or self.element_claim(name, value, where, depth + 1))
                continue
            if context == _RESOLVED:  # load().then((u) => ...): what awaiting it gives
                out.extend(self.resolved_claim(name, value, where, cls, depth + 1))
                continue
            given = self.values(value, where, context, depth + 1)
            unknown = unknown or not given
            out.extend(Claim(c.path, c.chain, f"{name} = {c.via}", c.made) for c in given)
        if unknown:  # a global type's methods only where every value is known
            out = [c for c in out if not c.chain.startswith(chains.BUILTIN)]
        unique = list(dict.fromkeys(out))
        self.memo[key] = unique if len(unique) <= MAX_VALUES else []
        return self.memo[key]


# the holder of what a module exports as its default
DEFAULT = "default"
# array methods: that add their arguments as elements; whose callback's
# first parameter is an element; whose result has the same elements; whose
# result is one element
_ADDS = frozenset({"push", "unshift"})
_ELEMENT_CALLBACKS = frozenset(
    {"forEach", "map", "filter", "find", "findLast", "findIndex", "some", "every", "flatMap"}
)
# a callback's first parameter: a map's value (`forEach`; an array's element
# as before), what a promise resolves to (`then`)
_EACH_VALUE, _RESOLVED = "each value", "resolved"
_CALLBACK_GIVES = {"forEach": _EACH_VALUE, "then": _RESOLVED}
_GIVEN = ("of", _EACH_VALUE, _RESOLVED)
_SAME_ELEMENTS = frozenset({"filter", "slice", "sort", "reverse", "toSorted", "toReversed"})
_ELEMENT_OF = frozenset({"find", "findLast", "at", "pop", "shift"})
# a local's or parameter's context when its annotation names a global type
# (`xs: string[]`), beside "type" (a class's name)
BUILTIN_TYPE = "builtin"
_ANNOTATED = ("type", BUILTIN_TYPE)


def flows(
    path: str,
    root: ts.Node,
    text: Callable[[ts.Node], str],
    resolve: NameResolver,
    used: frozenset[tuple[int, int]] = frozenset(),
    outside: Callable[[str], str | None] = lambda _name: None,
) -> Flows:
    """What the file's member calls name through values, and the holders
    other files read; ``used``: the (line, column) of members used as
    values whose claims are wanted too; ``outside``: a class name imported
    from a package outside the repository, spelled with its package."""
    p = _Pass(text, resolve, members=bool(used), outside=outside)
    p.walk(root)
    p.settle()
    p.steps_left += root.end_byte
    out = Flows()

    def here(c: Claim) -> Claim:  # `this` is a class of this file
        return Claim(c.path or path, c.chain, c.via, c.made)

    # names declared inside some function: `api.run()` there may not be the file's `api`
    p.hidden = frozenset(p.parameter_names | {name for fn, name in p.locals if fn != -1})

    def member(node: ts.Node, fn: int, cls: str | None) -> list[Claim]:
        obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
        if obj is None or prop is None or obj.type == "this":
            return []  # this.m(): the tags rules bind it
        # one claim per chain: `x = new C()` in two places is one value
        found = list({(c.path, c.chain): c for c in map(here, p.values(obj, fn, cls))}.values())
        builtin = [c for c in found if c.chain.startswith(chains.BUILTIN)]
        if found and len(builtin) == len(found):
            # `parts.map()` on `parts = s.split(",")`: the platform's (rows())
            made = " or ".join(sorted({c.chain[len(chains.BUILTIN) :] for c in found}))
            return [Claim(path, chains.BUILTIN + made, found[0].via)]
        if len(found) == 1 or (found and all(c.made for c in found)):
            # `a: A | B`, `ok ? new A() : new B()`: either one's, a row each;
            # not several functions' returns, which the linker may not follow
            return [Claim(c.path, chains.attr(c.chain, text(prop)), c.via) for c in found]
        if not found and obj.type == "identifier" and text(obj) not in p.hidden:
            # `C.create()`, `api.run()`: a member of a class, object or function
            # the file defines or imports
            owner = resolve(text(obj))
            if owner is not None:
                written = f"{text(obj)}.{text(prop)}"
                return [
                    Claim(
                        owner[0], f"{owner[1]}.{text(prop)}", f"{written}: a member of {owner[1]}"
                    )
                ]
        return []

    for callee, fn, cls in p.calls:
        prop = callee.child_by_field_name("property")
        claims = member(callee, fn, cls) if prop is not None else []
        if claims and prop is not None:
            out.calls[(prop.start_point[0] + 1, prop.start_point[1])] = claims
    for node, fn, cls in p.members:
        prop = node.child_by_field_name("property")
        at = (prop.start_point[0] + 1, prop.start_point[1]) if prop is not None else None
        claims = member(node, fn, cls) if at in used else []
        # a read through two calls (`res = app.request(); f(res.status)`) is
        # mostly a library's value: the chain ends in an unknown return
        if claims and at is not None and all(c.chain.count(chains.CALL) <= 1 for c in claims):
            out.uses[at] = claims
    # an annotation is the holder's type, as a type checker reads it: its
    # other values are not followed (`c: C` set to `make()` in a method)
    typed: set[str] = set()
    for holder, annotation in p.typed:
        named = type_chain(annotation, text, resolve)
        made = builtins_js.named(text(annotation)) if named is None else None
        if named is not None:
            claim = Claim(named[0], named[1], f"{holder}: {text(annotation)}")
        elif made is not None:  # `cache: Map<K, V>;`, unless the file has a Map of its own
            claim = Claim(path, chains.BUILTIN + made, f"{holder}: {text(annotation)}")
        else:
            continue
        out.holders.append((holder, claim, annotation))
        typed.add(holder)
    for holder, made, written_at in p.builtin_typed:
        out.holders.append((holder, Claim(path, chains.BUILTIN + made, holder), written_at))
        typed.add(holder)
    for holder, value, fn, cls in [*p.attributes, *p.returns]:
        if holder in typed:
            continue
        for c in p.values(value, fn, cls):
            out.holders.append((holder, here(c), value))
    for holder, key in p.named_keys:  # `Jwt.sign` of `export const Jwt = { sign }`
        if (found := resolve(text(key))) is not None:
            out.holders.append((holder, Claim(found[0], found[1], f"{holder}: {text(key)}"), key))
    for getter, written_at in p.getters:  # `c.req` is what `get req()` returns
        claim = Claim(path, chains.holder_of_return(getter), f"getter {getter}")
        out.holders.append((getter, claim, written_at))
    for name, written_at in p.defaults:  # read by `import x from "./this"` (holder `default`)
        out.holders.append((DEFAULT, Claim(path, name, f"export default {name}"), written_at))
    for alias, name, written_at in p.aliases:
        claim = Claim(path, name, f"{EXPORT_ALIAS} {{ {name} as {alias} }}")
        out.holders.append((alias, claim, written_at))
    out.reexports = p.reexports
    for (fn, name), written in p.locals.items():
        if fn != -1:
            continue
        for value, where, context in written:
            if context == "type":
                claims = p.typed_claim(name, value)
            elif context == BUILTIN_TYPE:  # `export const names: string[] = []`
                typed_as = p.global_type(value)
                claims = [Claim(path, chains.BUILTIN + typed_as, name)] if typed_as else []
            elif context == "of":
                claims = p.element_claim(name, value, where)
            else:
                claims = [here(c) for c in p.values(value, where, context)]
            for c in claims:
                out.holders.append((name, c, value))
    out.holders += _alias_unions(root, text, resolve)
    return out


def _alias_unions(
    root: ts.Node, text: Callable[[ts.Node], str], resolve: NameResolver
) -> list[tuple[str, Claim, ts.Node]]:
    """``type Shape = Circle | Square`` at the top of a file: an instance of
    ``Shape`` (``s: Shape``, holder ``Shape()``) is one of a ``Circle`` or a
    ``Square``, for ``s.area()`` in any file (the linker reads the holder
    where a chain instantiates the alias: query/link.py). Only where every
    member names a type, as union_members reads one."""
    out = []
    for node in root.named_children:
        alias = node.child_by_field_name("declaration") if node.type == "export_statement" else node
        if alias is None or alias.type != "type_alias_declaration":
            continue
        name, value = alias.child_by_field_name("name"), alias.child_by_field_name("value")
        if name is None or value is None:
            continue
        written = chains.one_line(text(value), 60)  # excalidraw's unions run to 300 characters
        for member in union_members(value, text):
            found = resolve(text(member))
            if found is not None:
                how = f"{text(name)} = {written}"
                claim = Claim(found[0], found[1] + chains.CALL, how, made=True)
                out.append((text(name) + chains.CALL, claim, member))
    return out


def rows(
    path: str,
    language: str,
    root: ts.Node,
    edges: list[EdgeRow],
    top_level: set[str],
    text: Callable[[ts.Node], str],
    resolve: Resolver | None,
) -> list[EdgeRow]:
    """Member calls through a value: the tags query's edges (``edges``,
    indexer/extract.py) that a flow names are rewritten as chain claims in
    place, and the holders are returned as ``value`` rows."""
    imported = {e.alias or e.target: (e.module, e.target) for e in edges if e.kind == "import"}
    # `import * as T from "./types"`: the file a namespace's members are of
    namespaces = {
        e.alias or e.target: e.resolved_path
        for e in edges
        if e.kind == "import" and e.target_qualname == "" and e.resolved_path
    }

    def named(name: str) -> tuple[str, str] | None:
        head, dot, member = name.partition(".")
        if dot:  # `T.User`: a member of a namespace of the repository
            where = namespaces.get(head)
            return (where, member) if where and "." not in member else None
        if name in imported and resolve is not None:
            module, original = imported[name]
            where = resolve(language, path, module, original)
            return (where, original) if where else None
        return (path, name) if name in top_level else None

    def outside(name: str) -> str | None:
        """`Client` of `import { Client } from "pg"` (or `express` of `const
        express = require("express")`) that the resolver did not find in the
        repository: `pg.Client` (`express`). A `require` is also a top-level
        const of the file; an ES import cannot be both."""
        head, dot, member = name.partition(".")
        if dot:  # `React.PointerEvent` of `import * as React from "react"`
            if outside(head) is None:
                return None
            return f"{imported[head][0]}.{member}"
        if name not in imported:
            return None
        module, original = imported[name]
        if not module or _relative_spec(module) or named(name) is not None:
            return None
        return f"{module}.{original}" if original not in (DEFAULT, module) else module

    # a member used as a value that the file's rules left unclaimed
    # (extract.py keeps those rows for this pass): `users.list` passed
    used = frozenset(
        (e.start_line, e.start_col)
        for e in edges
        if e.kind == EdgeKind.USE and e.binding != Binding.BOUND
    )
    found = flows(path, root, text, named, used, outside)
    claimed: list[EdgeRow] = []
    for e in edges:
        claims = (found.calls if e.kind == EdgeKind.CALL else found.uses).get(
            (e.start_line, e.start_col), []
        )
        if not claims or e.binding == Binding.BOUND:
            claimed.append(e)
        elif claims[0].chain.startswith(chains.BUILTIN):
            made = claims[0].chain[len(chains.BUILTIN) :]
            claimed.append(
                e._replace(binding=str(Binding.EXTERNAL), via=f"{claims[0].via}: {made}'s")
            )
        else:
            claimed.extend(
                e._replace(
                    resolved_path=c.path,
                    target_qualname=c.chain,
                    binding=str(Binding.BOUND),
                    via=c.via,
                )
                for c in claims
            )
    edges[:] = claimed
    if used:  # what no flow names either: a local's member, `req.body`
        edges[:] = [e for e in edges if e.kind != EdgeKind.USE or e.binding == Binding.BOUND]
    for spec, at in found.reexports:
        where = resolve(language, path, spec, DEFAULT) if resolve is not None else None
        if where:
            found.holders.append((DEFAULT, Claim(where, DEFAULT, f"require({spec!r})"), at))
    return [
        value_row(path, holder, language, at.start_point, at.end_point, c.path, c.chain, c.via)
        for holder, c, at in found.holders
    ]


# arguments that hold nothing of the repository's
_PLAIN = frozenset(
    {"string", "number", "true", "false", "null", "undefined", "template_string", "regex"}
)


def _plain(node: ts.Node) -> bool:
    """A literal, or an object or array of literals (``{ logger: true }``);
    not a name, a call or a function, which may be the repository's."""
    if node.type in _PLAIN or node.type == "comment":
        return True
    if node.type == "array":
        return all(map(_plain, node.named_children))
    if node.type == "object":
        return all(
            c.type == "pair" and (v := c.child_by_field_name("value")) is not None and _plain(v)
            for c in node.named_children
            if c.type != "comment"
        )
    return False


def _named(node: ts.Node) -> bool:
    """A name, or a namespace's member (`T.User` of `import * as T`)."""
    if node.type == "identifier":
        return True
    obj = node.child_by_field_name("object") if node.type == "member_expression" else None
    return obj is not None and obj.type == "identifier"


def _relative_spec(module: str) -> bool:
    """A spec of a file of the repository (`./m`, `../lib`, `/abs`)."""
    return module.startswith((".", "/"))


def required_spec(node: ts.Node, text: Callable[[ts.Node], str]) -> str | None:
    """The module ``require("./m")`` names, if ``node`` is such a call."""
    if node.type != "call_expression":
        return None
    callee, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    if callee is None or text(callee) != "require" or args is None or args.named_child_count != 1:
        return None
    arg = args.named_children[0]
    if arg.type != "string" or arg.named_child_count != 1:
        return None
    return text(arg.named_children[0])
