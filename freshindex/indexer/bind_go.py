"""Go references: what one file's rules can claim about ``pkg.F`` and ``F``.

Go resolves names by package, and a package is a folder: ``store.Open()``
names ``Open`` in whichever file of the imported package's folder defines
it, and a bare ``helper()`` names a package-level ``helper`` in any file of
this file's own folder. One file cannot know which file that is (nor
should it: an edit to a sibling would have to rewrite this file's rows), so
the claim is (a file of the package, the name), and the linker looks the
name up across the package's files when the index is read
(freshindex/query/link.py, ``package_files``).

A method's receiver has a known type: ``func (c *Command) Run() { c.Flags() }``
names ``Command.Flags``, in any file of the package (or, through an
embedded struct of a ``Command`` declared in the same file, the embedded
type's method).

What stays a candidate, never a guess:
- a name declared inside the enclosing function (a parameter, ``:=``,
  ``var``, ``range``, a type switch's alias): ``f := load; f()`` names no
  package-level ``f``, and a local that shadows an import's name hides the
  package (``store := db.Store(); store.Open()``);
- a member of anything that is not an imported package, a typed local, the
  receiver, a struct field or what a call returns (``NewB().Port(1)``,
  through the return facts): another expression's type would take inference;
- a package whose import path is not a folder of the repository:
  ``external``; so are the predeclared names (``len``, ``error``, ``int``...)
  unless the package declares its own (``func max`` in a sibling file): that
  is decided when linking too, the claim says "predeclared".

Pure and per file, like the rest of the indexer.

Over 400 lines: every claim here reads the same per-function table of
declared names and types (``GoScopes``), chains of calls included; split,
each part would need that table handed to it.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass

import tree_sitter as ts

from freshindex.indexer import chains, types_go
from freshindex.indexer.languages import pattern_query
from freshindex.indexer.schema import EdgeRow, value_row
from freshindex.indexer.types_go import TypeName, first_result, named_type

PREDECLARED = frozenset(
    {
        # functions
        "append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len",
        "make", "max", "min", "new", "panic", "print", "println", "real", "recover",
        # types (a conversion is a call)
        "any", "bool", "byte", "comparable", "complex64", "complex128", "error",
        "float32", "float64", "int", "int8", "int16", "int32", "int64", "rune",
        "string", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr",
        # constants
        "true", "false", "iota", "nil",
    }
)  # fmt: skip

# the claim of a predeclared name: the linker makes it external unless the
# package declares the name itself
PREDECLARED_VIA = "predeclared in Go, unless its package declares it"
# how many locals `c := b.X(); b := a.Y()` is followed through
_LOCAL_DEPTH = 4

_FUNCTION_QUERY = "[(function_declaration) (method_declaration) (func_literal)] @f"
# node types whose `name` children declare names in the function's scope
_NAMED_DECLARATIONS = (
    "parameter_declaration",
    "variadic_parameter_declaration",
    "var_spec",
    "const_spec",
)
# node types whose `left` (or `alias`) expression list declares names
_LEFT_DECLARATIONS = {
    "short_var_declaration": "left",
    "range_clause": "left",
    "receive_statement": "left",
    "type_switch_statement": "alias",
}


@dataclass(frozen=True)
class Claim:
    """What a Go reference names: ``package`` is the import path of the
    package for ``pkg.F`` (None: this file's own package)."""

    package: str | None
    qualifier: str = ""  # the import's local name in pkg.F, or the receiver's name
    predeclared: bool = False  # a predeclared name: external unless the package has one
    receiver_type: str = ""  # a member of the method's receiver: its type's name
    declared: bool = False  # receiver_type is what a variable was declared with
    field: bool = False  # receiver_type is a field of another file's struct: `Server().db`


# the package of a TypeName that is what a function of this package returns,
# declared in another of its files: (RETURNED, "NewRepo"), read when linking
RETURNED = "()"


@dataclass(frozen=True)
class _Function:
    declared: frozenset[str]  # names declared in it, the receiver excluded
    receiver: tuple[str, str] | None  # a method's (receiver name, its type's name)
    # a name declared with one named type (`p *Repo`, `var r Repo`, `r :=
    # &Repo{}`, `r := NewRepo()`); a name declared twice with two is not here
    typed: dict[str, TypeName]


class GoScopes:
    """Names declared inside each function of one file, computed once per
    function; with the file's root, also the named types its functions
    return and its structs' fields have, for ``r := NewRepo(); r.Save()``
    and ``s.db.Query()``."""

    def __init__(self, text: Callable[[ts.Node], str], root: ts.Node | None = None):
        self._text = text
        self._functions: dict[int, _Function] = {}
        # the file's outermost functions as (start, end, node), in source order
        self._outermost: list[tuple[int, int, ts.Node]] = []
        self._starts: list[int] = []  # their start bytes, for bisect
        self.results: dict[str, TypeName] = {}  # function -> the named type it returns
        self._result_names: dict[str, ts.Node] = {}  # function -> its name node
        self.fields: dict[str, dict[str, TypeName]] = {}  # struct -> field -> its type
        self._field_names: dict[tuple[str, str], ts.Node] = {}  # (struct, field) -> its name
        if root is not None:
            self._file(root)

    def _file(self, root: ts.Node) -> None:
        found = ts.QueryCursor(pattern_query("go", _FUNCTION_QUERY)).captures(root).get("f", [])
        for f in sorted(found, key=lambda n: (n.start_byte, -n.end_byte)):
            if not self._outermost or f.start_byte >= self._outermost[-1][1]:
                self._outermost.append((f.start_byte, f.end_byte, f))
                self._starts.append(f.start_byte)
        for top in root.named_children:
            if top.type in ("function_declaration", "method_declaration"):
                name = top.child_by_field_name("name")
                made = named_type(first_result(top.child_by_field_name("result")), self._text)
                if name is not None and made is not None:
                    # a method's holder is `Repo.Child`: no bare call names it
                    owner = types_go.receiver_type_name(top, self._text)
                    key = f"{owner}.{self._text(name)}" if owner else self._text(name)
                    if top.type == "function_declaration" or owner:
                        self.results[key] = made
                        self._result_names[key] = name
            elif top.type == "type_declaration":
                for struct, fields in types_go.struct_fields(top, self._text).items():
                    typed = self.fields.setdefault(struct, {})
                    for field, (kind, at) in fields.items():
                        typed[field] = kind
                        self._field_names[(struct, field)] = at

    def local_type(self, node: ts.Node, name: str) -> TypeName | None:
        """The named type ``name`` was declared with in the function holding
        ``node``, or its receiver's."""
        f = self._function(node)
        if f is None:
            return None
        return self._local(f, name, 0)

    def _local(self, f: _Function, name: str, depth: int) -> TypeName | None:
        if f.receiver is not None and f.receiver[0] == name and name not in f.declared:
            return ("", f.receiver[1])
        kind = f.typed.get(name)
        if kind is None or not kind[1].endswith(RETURNED) or kind[0] in ("", RETURNED):
            return kind
        owner, member = kind
        is_receiver = f.receiver is not None and f.receiver[0] == owner
        if owner not in f.declared and not is_receiver:
            return kind  # `store.Open()`: a function of an imported package
        # `c := r.Child()`: a method of what the local r is, followed
        # through locals a few deep (`a := b.X(); b := a.Y()` ends)
        base = self._local(f, owner, depth + 1) if depth < _LOCAL_DEPTH else None
        if base is None:
            return None
        if base[0] == RETURNED:  # r := NewRepo(): NewRepo().Child()
            return (RETURNED, f"{base[1]}{RETURNED}.{member.removesuffix(RETURNED)}")
        return (base[0], f"{base[1]}.{member}")

    def shadowed(self, node: ts.Node, name: str) -> bool:
        """Whether ``name`` is declared in the function holding ``node``
        (anywhere in it, closures included: conservative), its receiver too."""
        f = self._function(node)
        return f is not None and (
            name in f.declared or (f.receiver is not None and f.receiver[0] == name)
        )

    def receiver_type(self, node: ts.Node, name: str) -> str | None:
        """The type of the receiver ``name`` names where ``node`` is, if it does."""
        f = self._function(node)
        if f is None or f.receiver is None or f.receiver[0] != name or name in f.declared:
            return None
        return f.receiver[1]

    def _function(self, node: ts.Node) -> _Function | None:
        """The outermost function holding ``node``, looked up by byte range
        among the file's (a walk up from every name was quadratic in the
        nesting, since a node's parent is found by a walk down from the root)."""
        at = node.start_byte
        i = bisect.bisect_right(self._starts, at) - 1
        if i < 0 or at >= self._outermost[i][1]:
            return None
        outer = self._outermost[i][2]
        found = self._functions.get(outer.start_byte)
        if found is None:
            found = self._functions[outer.start_byte] = self._collect(outer)
        return found

    def _collect(self, function: ts.Node) -> _Function:
        names: set[str] = set()
        typed: dict[str, TypeName | None] = {}
        receiver = None
        stack = [function]
        if function.type == "method_declaration":
            node = function.child_by_field_name("receiver")
            receiver = types_go.receiver(node, self._text) if node is not None else None
            stack = [c for c in function.named_children if c != node]
        while stack:
            node = stack.pop()
            if node.type in _NAMED_DECLARATIONS:
                declared = [self._text(n) for n in node.children_by_field_name("name")]
                names.update(declared)
                kind = named_type(node.child_by_field_name("type"), self._text)
                if kind is None and node.type == "var_spec":
                    values = node.child_by_field_name("value")
                    if values is not None and len(values.named_children) == 1 == len(declared):
                        kind = self._made(values.named_children[0])
                for n in declared:
                    _type_once(typed, n, kind)
            elif node.type in _LEFT_DECLARATIONS:
                left = node.child_by_field_name(_LEFT_DECLARATIONS[node.type])
                if left is not None:
                    declared = [self._text(n) for n in _identifiers(left) if n.type == "identifier"]
                    names.update(declared)
                    right = node.child_by_field_name("right")
                    rights = right.named_children if right is not None else []
                    short = node.type == "short_var_declaration"
                    pairwise = short and len(rights) == len(declared)
                    for i, n in enumerate(declared):
                        kind = self._made(rights[i]) if pairwise else None
                        if short and i == 0 and len(rights) == 1 < len(declared):
                            kind = self._made(rights[0])  # `r, err := Open()`: the first result
                        _type_once(typed, n, kind)
            stack.extend(node.named_children)
        # `x.M()` of a local x (or the receiver) is x's method, read when asked
        known = {n: kind for n, kind in typed.items() if kind is not None}
        return _Function(frozenset(names), receiver, known)

    def _made(self, value: ts.Node) -> TypeName | None:
        """The named type a value is made with: ``Repo{}``, ``&Repo{}``,
        ``new(Repo)``, ``NewRepo()`` of this file."""
        if value.type == "unary_expression" and value.named_child_count == 1:
            value = value.named_children[0]
        if value.type == "composite_literal":
            return named_type(value.child_by_field_name("type"), self._text)
        if value.type == "call_expression":
            base, methods = _chain_base(value, self._text)
            if methods:  # NewBuilder().Port(1).Build(): through each return
                return _compose(self._made(base), methods) if base is not None else None
            fn = value.child_by_field_name("function")
            if fn is not None and fn.type == "identifier":
                called = self._text(fn)
                arguments = value.child_by_field_name("arguments")
                if called == "new" and arguments is not None and arguments.named_child_count == 1:
                    return named_type(arguments.named_children[0], self._text)  # new(Repo)
                if called in self.results:
                    return self.results[called]
                if called not in PREDECLARED:  # another file's: what it returns
                    return (RETURNED, called)
            if fn is not None and fn.type == "selector_expression":
                package, member = fn.child_by_field_name("operand"), fn.child_by_field_name("field")
                if package is not None and member is not None and package.type == "identifier":
                    # store.Open(): what a function of an imported package returns
                    return (self._text(package), self._text(member) + RETURNED)
        return None

    def result_facts(self, path: str) -> list[EdgeRow]:
        """What each function of this file returns when that is a named type
        of its package, as ``value`` rows (holder ``NewRepo()``, the type):
        ``r := NewRepo(); r.Save()`` in another file of the package reads
        them when the index is read (query/link.py's chains)."""
        out = []
        for name, (package, kind) in self.results.items():
            at = self._result_names[name]
            if not package and kind not in PREDECLARED:  # `error`, `string`: no type here
                via = f"returns {kind}"
                out.append(
                    value_row(
                        path, f"{name}()", "go", at.start_point, at.end_point, path, kind, via
                    )
                )
        return out

    def field_facts(self, path: str) -> list[EdgeRow]:
        """The named type of each field of this file's structs, when it is a
        type of its package, as ``value`` rows (holder ``Context.engine``):
        ``c.engine.Run()`` in another file of the package, where ``c`` is a
        ``*Context``, reads them when the index is read."""
        out = []
        for struct, fields in self.fields.items():
            for field, (package, kind) in fields.items():
                at = self._field_names[(struct, field)]
                if not package and kind not in PREDECLARED:
                    # a value of the type (`Engine()`), not the type: a call
                    # of a field of a func type (`conf.Skip(c)`) is no call of it
                    via = f"{struct}.{field} is a {kind}"
                    start, end = at.start_point, at.end_point
                    held = f"{kind}{RETURNED}"
                    out.append(
                        value_row(path, f"{struct}.{field}", "go", start, end, path, held, via)
                    )
        return out


def _type_once(typed: dict[str, TypeName | None], name: str, kind: TypeName | None) -> None:
    """A name's type, unless it is declared again with another (or none)."""
    if name in typed and typed[name] != kind:
        typed[name] = None
    else:
        typed.setdefault(name, kind)


def _identifiers(node: ts.Node) -> list[ts.Node]:
    if node.type == "identifier":
        return [node]
    return [c for c in node.named_children if c.type == "identifier"]


def claim(
    name_node: ts.Node,
    imports: dict[str, str],
    scopes: GoScopes,
    text: Callable[[ts.Node], str],
) -> Claim | None:
    """A Claim for a reference this file's rules can bind, None for a
    candidate. ``imports``: local package name -> import path."""
    parent = name_node.parent
    name = text(name_node)
    if parent is not None and parent.type in ("selector_expression", "qualified_type"):
        field = "field" if parent.type == "selector_expression" else "name"
        if parent.child_by_field_name(field) != name_node:
            return _bare(name_node, name, scopes)  # the operand itself: `x` of `x.f`
        operand = parent.child_by_field_name(
            "operand" if parent.type == "selector_expression" else "package"
        )
        if operand is not None and operand.type == "selector_expression":
            return _field_claim(operand, imports, scopes, text)  # s.db.Query()
        if operand is not None and operand.type == "call_expression":
            return _call_claim(operand, imports, scopes, text)  # NewB().Port(1).Build().Run()
        if operand is None or operand.type not in ("identifier", "package_identifier"):
            return None  # a member of an expression: its type would take inference
        local = text(operand)
        receiver = scopes.receiver_type(operand, local) if parent.type != "qualified_type" else None
        if receiver:
            return Claim(None, local, receiver_type=receiver)
        typed = scopes.local_type(operand, local) if parent.type != "qualified_type" else None
        if typed is not None:  # r.Save() on `r *Repo`, `r := &Repo{}`
            return _typed_claim(typed, local, imports)
        if local not in imports or scopes.shadowed(operand, local):
            return None  # a variable's member, or a local hiding the package
        return Claim(imports[local], local)
    return _bare(name_node, name, scopes)


def names_member(claim: Claim | None) -> bool:
    """Whether a claim on ``x.f`` says what ``f`` is a member of: an
    imported package, or a named type the package may declare (``s`` of
    ``s *Server``; not ``v any``)."""
    if claim is None:
        return False
    return claim.package is not None or claim.receiver_type not in ("", *PREDECLARED)


def _typed_claim(typed: TypeName, written: str, imports: dict[str, str]) -> Claim | None:
    """A member of a value of a named type: this package's, or an imported
    one's; or of what a function of the package returns (``NewRepo()``)."""
    package, name = typed
    if package == RETURNED:
        return Claim(None, written, receiver_type=f"{name}{RETURNED}", declared=True)
    if package and name.endswith(RETURNED):  # r := store.Open(): read in the package
        if package not in imports:
            return None
        return Claim(imports[package], written, receiver_type=name)
    if package and package not in imports:
        return None
    return Claim(imports[package] if package else None, written, receiver_type=name, declared=True)


def _field_claim(
    selector: ts.Node, imports: dict[str, str], scopes: GoScopes, text: Callable[[ts.Node], str]
) -> Claim | None:
    """``s.db.Query()``: ``db`` a field of ``s``'s struct, declared in this
    file with a named type; of a struct of another file of the package (or
    of what a function of it returns), the field's ``value`` row there,
    read when linking (``Server().db``)."""
    obj, field = selector.child_by_field_name("operand"), selector.child_by_field_name("field")
    if obj is None or field is None or obj.type != "identifier":
        return None
    owner = scopes.local_type(obj, text(obj))
    if owner is None or owner[0] not in ("", RETURNED):
        return None
    package, name = owner
    if not package and name in scopes.fields:  # this file's struct
        typed = scopes.fields[name].get(text(field))
        return _typed_claim(typed, text(selector), imports) if typed is not None else None
    if package == RETURNED and chains.length(name) >= chains.MAX_STEPS - 1:
        return None
    holder = f"{name}{RETURNED}.{text(field)}"
    return Claim(None, text(selector), receiver_type=holder, declared=True, field=True)


def _call_claim(
    call: ts.Node, imports: dict[str, str], scopes: GoScopes, text: Callable[[ts.Node], str]
) -> Claim | None:
    """A member of what a call returns: ``NewBuilder().Port(1).Build()``, a
    function of the package or an imported one (``store.Open()``), or a
    method of a typed local or the receiver (``r.Child()``), then each
    method after it, as a chain the linker walks over the return facts."""
    base, methods = _chain_base(call, text)
    if base is None:
        return None
    fn = base.child_by_field_name("function")
    kind: TypeName | None = None
    if fn is not None and fn.type == "identifier":  # NewBuilder(): this package's
        if not scopes.shadowed(fn, text(fn)):
            kind = scopes._made(base)
    elif fn is not None and fn.type == "selector_expression":
        operand, field = fn.child_by_field_name("operand"), fn.child_by_field_name("field")
        if operand is not None and field is not None and operand.type == "identifier":
            local = text(operand)
            typed = scopes.receiver_type(operand, local)
            owner: TypeName | None = ("", typed) if typed else scopes.local_type(operand, local)
            if owner is not None and owner[0] in ("", RETURNED):  # r.Child(): r's type's
                kind = _compose(owner, [text(field)])
            elif local in imports and not scopes.shadowed(operand, local):  # store.Open()
                kind = (local, f"{text(field)}{RETURNED}")
    kind = _compose(kind, methods) if kind is not None else None
    return _typed_claim(kind, chains.spelled(text(call)), imports) if kind is not None else None


def _chain_base(call: ts.Node, text: Callable[[ts.Node], str]) -> tuple[ts.Node | None, list[str]]:
    """The first call of a chain (``NewBuilder()`` of ``NewBuilder().Port(1)
    .Build()``) and the methods called after it, in order; (None, []) past
    ``chains.MAX_STEPS`` calls (chains.unwind)."""

    def method(node: ts.Node) -> tuple[ts.Node, str] | None:
        fn = node.child_by_field_name("function")
        operand = fn.child_by_field_name("operand") if fn is not None else None
        field = fn.child_by_field_name("field") if fn is not None else None
        if operand is None or field is None or operand.type != "call_expression":
            return None
        return operand, text(field)

    walked = chains.unwind(call, method)
    return walked if walked is not None else (None, [])


def _compose(base: TypeName | None, methods: list[str]) -> TypeName | None:
    """What calling ``methods`` in turn on a value of ``base`` gives: a chain
    in the same shapes as a local's TypeName (``(RETURNED, "NewB().Port")``
    for this package, ``("store", "Open().Port()")`` for an imported one)."""
    if base is None:
        return None
    package, name = base
    for method in methods:
        if package == RETURNED:
            name = f"{name}{RETURNED}.{method}"
        elif not package:  # a value of this package's type
            package, name = RETURNED, f"{name}.{method}"
        else:
            name = f"{name}.{method}{RETURNED}"
        if chains.length(name) >= chains.MAX_STEPS:
            return None
    return package, name


def _bare(name_node: ts.Node, name: str, scopes: GoScopes) -> Claim | None:
    if scopes.shadowed(name_node, name):
        return None
    return Claim(None, predeclared=name in PREDECLARED)
