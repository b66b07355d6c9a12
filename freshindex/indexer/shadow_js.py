"""Names a JavaScript or TypeScript function declares for itself: its
parameters and its locals hide the file's top-level name or import of the
same name there (`var req = require("./request")` at the top, then
`function (req, res) { handle(req) }`: that `req` is the parameter).

One query pass finds the functions and the declarations; a declaration
hides its name in the innermost function around it, nested functions
included (a block's own `let` is taken for the whole function: a rare
reference lost rather than a wrong one kept).
"""

from __future__ import annotations

from collections.abc import Callable

import tree_sitter as ts

from freshindex.indexer.guarded import Guarded, innermost_around
from freshindex.indexer.languages import pattern_query

_FUNCTIONS = """
[(function_declaration) (function_expression) (arrow_function) (method_definition)
 (generator_function_declaration) (generator_function)] @function
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
    ):
        """``definitions``: where the file's definitions' names start; such a
        declaration (`const mw = () => ...` inside a `describe` callback) is
        the definition a claim names, not a local that hides it."""
        grammar = "javascript" if language == "javascript" else "typescript"
        query = pattern_query(language, _FUNCTIONS + _BOTH + _DECLARED[grammar])
        functions: list[tuple[int, int, tuple[int, int]]] = []
        names: list[tuple[int, str]] = []
        for _i, caps in ts.QueryCursor(query).matches(root):
            for node in caps.get("function", ()):
                span = (node.start_byte, node.end_byte)
                functions.append((*span, span))
            for node in caps.get("name", ()):
                if node.start_byte not in definitions:
                    names.append((node.start_byte, text(node)))
        functions.sort(key=lambda f: (f[0], -f[1]))
        names.sort()
        # name -> the spans of the functions that declare it (a bounded
        # look-back each: a hostile file may declare one name thousands of times)
        self._hiding: dict[str, Guarded[bool]] = {}
        around = innermost_around(functions, [at for at, _name in names])
        for (_at, name), inner in zip(names, around, strict=True):
            if inner is not None:
                self._hiding.setdefault(name, Guarded()).add(*inner, True)

    def hidden(self, name: str, at: int) -> bool:
        """Whether the name read at byte ``at`` is a function's own there."""
        spans = self._hiding.get(name)
        return spans is not None and spans.innermost(at) is not None
