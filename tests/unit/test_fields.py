"""Fields and properties as definitions (indexer/queries/*.scm, and
extract.py's Python instance attributes): what a class or struct holds is a
symbol of it, and a more specific kind of the same declaration wins."""

from __future__ import annotations

import pytest

from freshindex.indexer.extract import extract
from freshindex.indexer.languages import language_for


def _symbols(path: str, src: str) -> dict[str, tuple[str, int, str]]:
    """qualname -> (kind, line, container)."""
    lang = language_for(path)
    assert lang
    return {r[4]: (r[5], r[7], r[3]) for r in extract(path, lang, src.encode()).symbols}


def test_python_class_attributes_are_fields() -> None:
    src = (
        "@dataclass\nclass User:\n    name: str\n    age: int = 0\n    KIND = 'user'\n"
        "    def __init__(self):\n        self._cache = {}\n        local = 1\n"
    )
    syms = _symbols("m.py", src)
    assert syms["User.name"] == ("field", 3, "User")
    assert syms["User.age"] == ("field", 4, "User")
    assert syms["User.KIND"] == ("field", 5, "User")
    # what a method sets on self is the class's; its locals are no symbols
    assert syms["User._cache"] == ("field", 7, "User")
    assert not {"User.__init__._cache", "User.__init__.local", "User.local"} & set(syms)


def test_an_instance_attribute_is_defined_once_where_it_is_first_set() -> None:
    src = (
        "class U:\n    name = ''\n    def __init__(self):\n        self.name = 'x'\n"
        "        self.c = 1\n        self.c = 2\n        if True:\n            self.deep = 1\n"
        "    @property\n    def label(self):\n        return 1\n"
        "    def reset(self):\n        self.label = 2\n        self.later = 3\n"
    )
    rows = extract("m.py", "python", src.encode()).symbols
    fields = [(r[4], r[7]) for r in rows if r[5] == "field"]  # every row: no duplicate
    # a class attribute and a method keep their name; an attribute set only
    # under an `if` is not a definition
    assert fields == [("U.name", 2), ("U.c", 5), ("U.later", 14)]


@pytest.mark.parametrize(
    ("path", "src", "fields"),
    [
        ("A.java", "class A {\n  private Repo repo;\n  static int N = 1;\n}\n", {"A.repo": 2}),
        ("u.go", "package p\ntype User struct {\n\tName string\n\tInner\n}\n", {"User.Name": 3}),
        ("u.rs", "struct User {\n    pub age: u32,\n}\n", {"User.age": 2}),
        ("A.cs", "class A {\n  private Repo repo;\n  public int N { get; }\n}\n", {"A.repo": 2}),
        ("a.php", "<?php\nclass A {\n  private $repo;\n  const X = 1;\n}\n", {"A.repo": 3}),
    ],
)
def test_fields_are_definitions(path: str, src: str, fields: dict[str, int]) -> None:
    """A field is a definition of its class or struct; a more specific kind
    of the same declaration wins (Java's static field is a constant, C#'s
    property a property), and an embedded Go struct is a base, not a field."""
    syms = _symbols(path, src)
    assert {q: line for q, (kind, line, _c) in syms.items() if kind == "field"} == fields
