"""Ruby receivers: the class a method is called on, where the code says it.

Ruby declares no types, but three forms name the class plainly: a call on
a constant (`Repo.open`, `Admin::User.find`, `Repo.new`), on what
`Repo.new` makes (`Repo.new.save`), and on a local assigned `Repo.new`
earlier in the same method (`r = Repo.new; r.save`). One query of the nodes that scope, assign or call, in source
order, with a stack of the open methods; a local takes its last
assignment before the call, and one assigned anything else is unknown.
What the pass finds is a constant as written; extract.py claims it, and
the linker looks for it in the file and the files it requires
(query/link.py). A call on anything else stays a candidate.

Also the calls Ruby writes as a bare name (`vcalls`): `helper` with no
receiver, arguments or parentheses is a call of the method unless the
name is a local there, which Ruby decides as it reads: a name assigned,
or bound as a parameter, earlier in the method (or in a block around it).
"""

from __future__ import annotations

from collections.abc import Callable

import tree_sitter as ts

from freshindex.indexer.languages import in_source_order, pattern_query, within_open

_PATTERNS = """
[(method) (singleton_method) (block) (do_block) (lambda)] @scope
(assignment left: (identifier)) @declare
(call receiver: [(constant) (scope_resolution) (identifier) (call)]) @call
"""


def receiver_types(root: ts.Node, text: Callable[[ts.Node], str]) -> dict[int, tuple[str, str]]:
    """The start byte of each called method's name -> (the receiver as
    written, the class it names as written, dotted: ``Admin.User``)."""
    out: dict[int, tuple[str, str]] = {}
    # (where it ends, the locals assigned `Const.new` so far: "" for anything else)
    stack: list[tuple[int, dict[str, str]]] = [(root.end_byte, {})]
    for node, kind in within_open(in_source_order("ruby", _PATTERNS, root), stack):
        scope = stack[-1][1]
        if kind == "scope":
            # a block sees the method's locals; a method starts afresh
            inner = {} if node.type in ("method", "singleton_method") else {**scope}
            stack.append((node.end_byte, inner))
        elif kind == "declare":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and left.type == "identifier":
                scope[text(left)] = (_made(right, text) if right is not None else None) or ""
        else:
            receiver, method = (
                node.child_by_field_name("receiver"),
                node.child_by_field_name("method"),
            )
            if receiver is None or method is None or method.type != "identifier":
                continue
            typed = constant(receiver, text) or _made(receiver, text)  # Repo.new.save
            if typed is None and receiver.type == "identifier":
                typed = scope.get(text(receiver)) or None
            if typed:
                out[method.start_byte] = (text(receiver), typed)
    return out


# Ruby's core classes of its literals, and the ones a program names most:
# a method called on one is Ruby's, unless a file of the repository reopens
# the class with a method of that name (query/link.py asks)
_LITERALS = {
    "array": "Array",
    "string": "String",
    "hash": "Hash",
    "integer": "Integer",
    "float": "Float",
    "regex": "Regexp",
}
CORE_CLASSES = frozenset(
    {*_LITERALS.values(), "Symbol", "Set", "Time", "File", "Dir", "IO", "Struct", "Thread"}
)


def _made(value: ts.Node, text: Callable[[ts.Node], str]) -> str | None:
    """``Repo.new(...)``: the class it makes; a literal's class (``[]``: an
    Array, ``"a"`` or ``"#{x}"``: a String, ``{}``: a Hash)."""
    if value.type in _LITERALS:
        return _LITERALS[value.type]
    if value.type != "call":
        return None
    receiver, method = value.child_by_field_name("receiver"), value.child_by_field_name("method")
    if receiver is None or method is None or text(method) != "new":
        return None
    return constant(receiver, text)


def constant(node: ts.Node, text: Callable[[ts.Node], str]) -> str | None:
    """A constant as a dotted name (``Repo``, ``Admin::User`` as ``Admin.User``);
    None for anything else (``::Repo`` too: the top level, spelled apart)."""
    if node.type == "constant":
        return text(node)
    if node.type == "scope_resolution":
        scope, name = node.child_by_field_name("scope"), node.child_by_field_name("name")
        head = constant(scope, text) if scope is not None else None
        return f"{head}.{text(name)}" if head and name is not None else None
    return None


# the nodes that open a scope of locals, the places a name becomes a local,
# the identifiers that are names but not expressions, and every identifier
_VCALL_PATTERNS = """
[(method) (singleton_method) (class) (singleton_class) (module)] @scope
[(block) (do_block) (lambda)] @block
[(method_parameters (identifier) @local)
 (lambda_parameters (identifier) @local)
 (block_parameters (identifier) @local)
 (destructured_parameter (identifier) @local)
 (optional_parameter name: (identifier) @local)
 (keyword_parameter name: (identifier) @local)
 (splat_parameter name: (identifier) @local)
 (hash_splat_parameter name: (identifier) @local)
 (block_parameter name: (identifier) @local)
 (assignment left: (identifier) @local)
 (operator_assignment left: (identifier) @local)
 (left_assignment_list (identifier) @local)
 (destructured_left_assignment (identifier) @local)
 (rest_assignment (identifier) @local)
 (exception_variable (identifier) @local)
 (for pattern: (identifier) @local)
 (as_pattern name: (identifier) @local)
 (array_pattern (identifier) @local)
 (find_pattern (identifier) @local)]
[(call method: (identifier) @name)
 (method name: (identifier) @name)
 (singleton_method name: (identifier) @name)
 (singleton_method object: (identifier) @name)
 (alias (identifier) @name)
 (undef (identifier) @name)
 (setter (identifier) @name)]
(identifier) @id
"""

# Kernel's and Module's methods a method body calls bare: never a method
# of the repository's classes, and not worth a claim the linker must refute
KERNEL_BARE = frozenset(
    {
        "__callee__", "__dir__", "__method__", "abort", "binding", "block_given?",
        "caller", "caller_locations", "exit", "exit!", "fail", "gets", "it",
        "lambda", "loop", "p", "pp", "print", "private", "proc", "protected",
        "public", "puts", "raise", "rand", "readline", "readlines", "srand",
    }
)  # fmt: skip

_HARD_SCOPES = frozenset({"method", "singleton_method"})


def vcalls(root: ts.Node, text: Callable[[ts.Node], str]) -> list[ts.Node]:
    """The bare names in method bodies that are method calls: not a local
    (a parameter, or assigned earlier in the method or a block around the
    name), not a Kernel method called bare (``KERNEL_BARE``), not a
    numbered block parameter (``_1``). Outside a method (a class body, the
    top level) a bare name is a DSL word or a script's local: not read."""
    caps = ts.QueryCursor(pattern_query("ruby", _VCALL_PATTERNS)).captures(root)
    named = {n.start_byte for n in caps.get("name", ())}
    locals_ = caps.get("local", [])
    taken = named | {n.start_byte for n in locals_}
    # in source order, a scope before what it holds: (start, -end, what, node)
    events = [(n.start_byte, -n.end_byte, _SCOPE, n) for n in caps.get("scope", ())]
    events += [(n.start_byte, -n.end_byte, _BLOCK, n) for n in caps.get("block", ())]
    events += [(n.start_byte, -n.end_byte, _LOCAL, n) for n in locals_]
    events += [
        (n.start_byte, -n.end_byte, _USE, n)
        for n in caps.get("id", ())
        if n.start_byte not in taken
    ]
    events.sort(key=_order)
    out: list[ts.Node] = []
    # (where it ends, whether a method holds it, whether it is a block, its locals)
    stack: list[tuple[int, bool, bool, set[str]]] = [(root.end_byte, False, False, set())]
    for at, _end, what, node in events:
        while len(stack) > 1 and at >= stack[-1][0]:
            stack.pop()
        if what == _SCOPE:
            stack.append((node.end_byte, node.type in _HARD_SCOPES, False, set()))
        elif what == _BLOCK:  # sees the locals around it
            stack.append((node.end_byte, stack[-1][1], True, set()))
        elif what == _LOCAL:
            stack[-1][3].add(text(node))
        elif stack[-1][1]:
            name = text(node)
            if name in KERNEL_BARE or (name[:1] == "_" and name[1:].isdigit()):
                continue
            if not _is_local(stack, name):
                out.append(node)
    return out


_SCOPE, _BLOCK, _LOCAL, _USE = range(4)


def _order(event: tuple[int, int, int, ts.Node]) -> tuple[int, int, int]:
    return event[0], event[1], event[2]


def _is_local(stack: list[tuple[int, bool, bool, set[str]]], name: str) -> bool:
    """A local of the innermost frame, or of the frames it sees: its blocks
    out to the method (or class) that holds them."""
    for _end, _in_method, is_block, names in reversed(stack):
        if name in names:
            return True
        if not is_block:
            return False
    return False
