"""Names a function declares for itself: its parameters and its locals
hide the file's top-level name or import of the same name there
(JavaScript's `var req = require("./request")` at the top, then `function
(req, res) { handle(req) }`: that `req` is the parameter; Rust's `fn
parse(..)` at the top, then `fn run(parse: bool) { f(parse) }`).

A query of the top-level statement or item around a name asked about
(once each) finds the functions and the declarations; a declaration
hides its name in the innermost function around it, nested functions
included (a block's own `let` is taken for the whole function, and a Rust
match arm's bare name for a binding, though it may be a constant: a rare
reference lost rather than a wrong one kept).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable

import tree_sitter as ts

from freshindex.indexer.guarded import Guarded, innermost_around
from freshindex.indexer.languages import pattern_query

_FUNCTIONS = """
[(function_declaration) (function_expression) (arrow_function) (method_definition)
 (generator_function_declaration) (generator_function)] @function
"""
_RUST = """
[(function_item) (closure_expression)] @function
(parameter pattern: (identifier) @name)
(let_declaration pattern: (identifier) @name)
(closure_parameters (identifier) @name)
(tuple_pattern (identifier) @name)
(tuple_struct_pattern type: (_) (identifier) @name)
(field_pattern name: (shorthand_field_identifier) @name)
(field_pattern pattern: (identifier) @name)
(ref_pattern (identifier) @name)
(mut_pattern (identifier) @name)
(slice_pattern (identifier) @name)
(captured_pattern . (identifier) @name)
(or_pattern (identifier) @name)
(for_expression pattern: (identifier) @name)
(match_pattern . (identifier) @name)
(let_condition pattern: (identifier) @name)
"""
_BOTH = """
(arrow_function parameter: (identifier) @name)
(variable_declarator name: (identifier) @name)
(array_pattern (identifier) @name)
(object_pattern (shorthand_property_identifier_pattern) @name)
(pair_pattern value: (identifier) @name)
(rest_pattern (identifier) @name)
(catch_clause parameter: (identifier) @name)
(for_in_statement left: (identifier) @name)
"""
_DECLARED = {
    "javascript": """
(formal_parameters (identifier) @name)
(formal_parameters (assignment_pattern left: (identifier) @name))
""",
    "typescript": """
(required_parameter pattern: (identifier) @name)
(optional_parameter pattern: (identifier) @name)
""",
}


class Shadows:
    """Which uses of a name a function's own declaration hides."""

    def __init__(
        self,
        language: str,
        root: ts.Node,
        text: Callable[[ts.Node], str],
        definitions: frozenset[int] = frozenset(),
        hideable: frozenset[str] | None = None,
    ):
        """``definitions``: where the file's definitions' names start; such a
        declaration (`const mw = () => ...` inside a `describe` callback) is
        the definition a claim names, not a local that hides it;
        ``hideable``: the names a local could hide (the file's top-level
        names and imports; None: any)."""
        if language == "rust":
            self._query = pattern_query(language, _RUST)
        else:
            grammar = "javascript" if language == "javascript" else "typescript"
            self._query = pattern_query(language, _FUNCTIONS + _BOTH + _DECLARED[grammar])
        self._language, self._root, self._text = language, root, text
        self._definitions, self._hideable = definitions, hideable
        # the file's top-level statements and items, each read when a name
        # in it is first asked about: a declaration hides only inside the
        # function around it, which one of them holds whole
        self._tops = root.children
        self._starts = [c.start_byte for c in self._tops]
        self._read: set[int] = set()
        # name -> the spans of the functions that declare it (a bounded
        # look-back each: a hostile file may declare one name thousands of times)
        self._hiding: dict[str, Guarded[bool]] = {}

    def _read_top(self, top: ts.Node) -> None:
        # queried from the statement itself: a byte range over the root made
        # each read step over every statement before it (a file of 20,000
        # functions took 13 s)
        functions: list[tuple[int, int, tuple[int, int]]] = []
        names: list[tuple[int, str]] = []
        for _i, caps in ts.QueryCursor(self._query).matches(top):
            for node in caps.get("function", ()):
                span = (node.start_byte, node.end_byte)
                functions.append((*span, span))
            for node in caps.get("name", ()):
                if node.start_byte not in self._definitions:
                    name = self._text(node)
                    if self._hideable is None or name in self._hideable:
                        names.append((node.start_byte, name))
        functions.sort(key=lambda f: (f[0], -f[1]))
        names.sort()
        around = innermost_around(functions, [at for at, _name in names])
        for (at, name), inner in zip(names, around, strict=True):
            if inner is not None:
                begin = _in_scope_from(top, at) if self._language == "rust" else inner[0]
                self._hiding.setdefault(name, Guarded()).add(begin, inner[1], True)

    def hidden(self, name: str, at: int) -> bool:
        """Whether the name read at byte ``at`` is a function's own there."""
        i = bisect_right(self._starts, at) - 1
        if i >= 0 and i not in self._read:
            self._read.add(i)
            self._read_top(self._tops[i])
        spans = self._hiding.get(name)
        return spans is not None and spans.innermost(at) is not None


# the Rust constructs a pattern binds in, and where the binding starts to hide
_BINDS = frozenset({"let_declaration", "let_condition", "for_expression", "match_arm"})
# a pattern nests this deep at most before the walk up gives up (the name
# then hides from where it stands)
_PATTERN_DEPTH = 8


def _in_scope_from(top: ts.Node, at: int) -> int:
    """Where a Rust binding starts to hide: after its `let` statement (`let
    matcher = matcher(..)` calls the function), after an `if let`'s
    condition, at a `for` loop's body or a match arm's expression; a
    parameter from where it stands."""
    node = top.named_descendant_for_byte_range(at, at)
    for _ in range(_PATTERN_DEPTH):
        node = node.parent if node is not None else None
        if node is None or node.type in ("parameter", "closure_parameters", "parameters"):
            return at
        if node.type in _BINDS:
            if node.type == "for_expression":
                body = node.child_by_field_name("body")
                return body.start_byte if body is not None else node.end_byte
            if node.type == "match_arm":
                pattern = node.child_by_field_name("pattern")
                return pattern.end_byte if pattern is not None else at
            return node.end_byte
    return at
