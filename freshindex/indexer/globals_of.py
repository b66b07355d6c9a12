"""What a language's platform defines without an import, by the name a call uses.

A call of ``assert_eq!`` in Rust, or of ``JSON.parse`` or ``describe`` in
JavaScript, names the standard library, the host or the test runner, not a
definition of the repository: the binder (indexer/extract.py) files it as
``external``, as Python's builtins are, unless the file defines or imports
the name itself. Left a candidate, such a call was listed under every
definition of the name and counted among the calls the binder could not
follow (ripgrep: 3,902 rows; zod: 3,967).
"""

from __future__ import annotations

from collections.abc import Callable

import tree_sitter as ts

from freshindex.indexer import builtins_js

# the macros of Rust's standard library a crate calls without importing them
_RUST_STD_MACROS = frozenset({
    "assert", "assert_eq", "assert_ne", "cfg", "column", "compile_error", "concat", "dbg",
    "debug_assert", "debug_assert_eq", "debug_assert_ne", "env", "eprint", "eprintln", "file",
    "format", "format_args", "include", "include_bytes", "include_str", "line", "matches",
    "module_path", "option_env", "panic", "print", "println", "stringify", "thread_local",
    "todo", "unimplemented", "unreachable", "vec", "write", "writeln",
})  # fmt: skip
# the prelude's enum variants called like functions
_RUST_PRELUDE_VARIANTS = {"Some": "Option", "Ok": "Result", "Err": "Result"}


def rust_prelude(name: str, parent: ts.Node | None) -> str | None:
    """How a bare Rust call names the standard library, or None: a macro
    of std (`vec!`), a variant of the prelude's `Option` or `Result`."""
    if parent is not None and parent.type == "macro_invocation":
        return "a macro of std" if name in _RUST_STD_MACROS else None
    kind = _RUST_PRELUDE_VARIANTS.get(name)
    return f"a variant of the prelude's {kind}" if kind else None


# what JavaScript, its hosts (browsers, Node) and test runners (jest, mocha,
# vitest) define without an import, by what a call names
_JS_GLOBAL_FUNCTIONS = frozenset({
    "Array", "BigInt", "Boolean", "Date", "Error", "Map", "Number", "Object", "Promise",
    "Proxy", "RangeError", "RegExp", "Set", "String", "Symbol", "SyntaxError", "TypeError",
    "URL", "URLSearchParams", "WeakMap", "WeakSet", "clearInterval", "clearTimeout",
    "decodeURI", "decodeURIComponent", "encodeURI", "encodeURIComponent", "fetch", "isFinite",
    "isNaN", "parseFloat", "parseInt", "queueMicrotask", "setImmediate", "setInterval",
    "setTimeout", "structuredClone",
})  # fmt: skip
_JS_GLOBAL_OBJECTS = frozenset({
    "Array", "Atomics", "Buffer", "Date", "Intl", "JSON", "Math", "Number", "Object", "Promise",
    "Reflect", "String", "Symbol", "console", "document", "globalThis", "localStorage",
    "navigator", "performance", "process", "window",
})  # fmt: skip
_TEST_GLOBALS = frozenset({
    "afterAll", "afterEach", "beforeAll", "beforeEach", "describe", "expect", "it", "suite",
    "test",
})  # fmt: skip
# and what their globals hold: `expect.objectContaining()`, `it.each()`, `vi.fn()`
_TEST_OBJECTS = _TEST_GLOBALS | {"jest", "vi"}
# the runner's names a function may declare for itself (`items.map((it) =>
# it.save())`): extract.py asks indexer/shadows.py before taking one for the runner's
TEST_NAMES = _TEST_OBJECTS
_EXPECT_MODIFIERS = ("not", "resolves", "rejects")


def js_global(
    name: str, parent: ts.Node | None, bare: bool, text: Callable[[ts.Node], str]
) -> tuple[str, str] | None:
    """(the global name, why) when a JS/TS call names what the platform or
    a test runner defines: ``parseInt(x)``, ``new Date()``, ``JSON.parse(s)``,
    ``describe(..)``, ``expect(x).not.toBe(y)``, ``expect.any(Date)``, ``vi.fn()``;
    None otherwise. The caller checks that the file, or a function around
    the call, does not bind the name itself."""
    if bare:
        if name in _TEST_GLOBALS:
            return name, "a global of the test runner"
        # `new ResizeObserver(f)`, `new Response(body)`: made only by `new`, so a
        # bare `Text(...)` may still be a function of another script's
        made = name in _JS_GLOBAL_FUNCTIONS or (
            parent is not None
            and parent.type == "new_expression"
            and builtins_js.named(name) is not None
        )
        return (name, "a global of JavaScript") if made else None
    obj = parent.child_by_field_name("object") if parent is not None else None
    if obj is None or parent is None or parent.type != "member_expression":
        return None
    if obj.type == "identifier" and text(obj) in _JS_GLOBAL_OBJECTS:
        return text(obj), f"a member of JavaScript's {text(obj)}"
    if obj.type == "identifier" and text(obj) in _TEST_OBJECTS:
        return text(obj), f"a member of the test runner's {text(obj)}"
    while obj.type == "member_expression":  # expect(x).not.toBe(y)
        prop, inner = obj.child_by_field_name("property"), obj.child_by_field_name("object")
        if prop is None or inner is None or text(prop) not in _EXPECT_MODIFIERS:
            return None
        obj = inner
    fn = obj.child_by_field_name("function") if obj.type == "call_expression" else None
    if fn is not None and fn.type == "identifier" and text(fn) == "expect":
        return "expect", "a matcher of the test runner's expect"
    return None
