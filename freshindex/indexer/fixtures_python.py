"""pytest fixtures: what a test's parameter holds.

``def test_home(client): client.get("/")`` calls nothing the file binds: pytest
passes ``client`` the value of the fixture of that name, the function
decorated ``@pytest.fixture`` in the test's own module, else in the nearest
``conftest.py`` above it, then the next one up. Most calls of a test suite go
through such parameters, so a refs answer that cannot follow them misses
most of a function's test callers (flask's `Scaffold.route` had 179 of them).

The binder (indexer/bind_python.py) gives such a parameter the value
``<fixture>()`` in the module that defines the fixture, or in the nearest
``conftest.py`` (whose file it cannot read: the linker looks further up when
the fixture is not there, query/link.py). In the defining file a fixture
that yields holds what it yields as its ``()``: pytest forbids calling a
fixture, so the holder has no other meaning; ``@pytest.fixture(name="db")``
makes the name ``db`` hold the function.

Which parameters are fixtures, as pytest collects them by default: those of
a ``test*`` function at the top of a ``test_*.py``, ``*_test.py`` or
``conftest.py`` (or a ``test*`` method of a ``Test*`` class there), and of
any fixture; not one with a default or an annotation, or one a
``@pytest.mark.parametrize`` names. A fixture pytest provides itself
(``tmp_path``, ``monkeypatch``, ...) is pytest's: ``monkeypatch.setattr()``
is external.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

import tree_sitter as ts

# the fixtures pytest itself provides: what a call of theirs names is pytest's
BUILTIN = frozenset(
    {
        "cache",
        "capfd",
        "capfdbinary",
        "caplog",
        "capsys",
        "capsysbinary",
        "doctest_namespace",
        "monkeypatch",
        "pytestconfig",
        "pytester",
        "record_property",
        "record_testsuite_property",
        "record_xml_attribute",
        "recwarn",
        "request",
        "testdir",
        "tmp_path",
        "tmp_path_factory",
        "tmpdir",
        "tmpdir_factory",
    }
)

_WORD = re.compile(r"[A-Za-z_]\w*")


def is_test_module(path: str) -> bool:
    name = posixpath.basename(path)
    return name == "conftest.py" or (
        name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))
    )


def fixture_name(definition: ts.Node, text: Callable[[ts.Node], str]) -> str | None:
    """The fixture a function definition is (``@pytest.fixture``,
    ``@fixture(scope="session")``, ``@pytest_asyncio.fixture``, with its
    ``name=``), or None."""
    for expr in _decorators(definition):
        call = expr if expr.type == "call" else None
        fn = call.child_by_field_name("function") if call is not None else expr
        if fn is None or text(fn).rsplit(".", 1)[-1] != "fixture":
            continue
        args = call.child_by_field_name("arguments") if call is not None else None
        for arg in args.named_children if args is not None else ():
            key, value = arg.child_by_field_name("name"), arg.child_by_field_name("value")
            if key is not None and value is not None and text(key) == "name":
                words = _WORD.findall(text(value))
                return words[0] if value.type == "string" and len(words) == 1 else None
        name = definition.child_by_field_name("name")
        return text(name) if name is not None else None
    return None


def parametrized(definition: ts.Node, text: Callable[[ts.Node], str]) -> set[str]:
    """The names ``@pytest.mark.parametrize("a, b", ...)`` gives values to."""
    out: set[str] = set()
    for expr in _decorators(definition):
        if expr.type == "identifier":  # `possible_keys = pytest.mark.parametrize(...)`
            expr = _assigned_call(definition, text(expr), text) or expr
        fn = expr.child_by_field_name("function") if expr.type == "call" else None
        args = expr.child_by_field_name("arguments") if expr.type == "call" else None
        if fn is None or args is None or not text(fn).endswith("parametrize"):
            continue
        first = args.named_children[0] if args.named_children else None
        if first is not None and first.type == "keyword_argument":
            first = first.child_by_field_name("value")
        if first is not None:
            out.update(_WORD.findall(text(first)))
    return out


def module_fixtures(root: ts.Node, text: Callable[[ts.Node], str]) -> dict[str, str]:
    """fixture name -> the name of the function that defines it, at the top
    of a module."""
    out: dict[str, str] = {}
    for child in root.named_children:
        definition = child.child_by_field_name("definition")
        if child.type != "decorated_definition" or definition is None:
            continue
        name = fixture_name(definition, text)
        fn = definition.child_by_field_name("name")
        if name is not None and fn is not None:
            out.setdefault(name, text(fn))
    return out


def _assigned_call(
    definition: ts.Node, name: str, text: Callable[[ts.Node], str]
) -> ts.Node | None:
    """The call a name is assigned in the block around a decorated
    definition, before it (a mark kept in a variable of the class or module)."""
    decorated = definition.parent
    block = decorated.parent if decorated is not None else None
    found = None
    for statement in block.named_children if block is not None else []:
        if statement == decorated:
            break
        assigned = statement.named_children[0] if statement.named_child_count else None
        if statement.type != "expression_statement" or assigned is None:
            continue
        left, right = assigned.child_by_field_name("left"), assigned.child_by_field_name("right")
        if assigned.type == "assignment" and left is not None and text(left) == name:
            found = right if right is not None and right.type == "call" else None
    return found


def _decorators(definition: ts.Node) -> list[ts.Node]:
    parent = definition.parent
    if parent is None or parent.type != "decorated_definition":
        return []
    return [
        c.named_children[0]
        for c in parent.named_children
        if c.type == "decorator" and c.named_children
    ]
