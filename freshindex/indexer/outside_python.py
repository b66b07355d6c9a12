"""Values from outside the repository, for Python's builtin receivers
(indexer/builtins_python.py): an instance of a class imported from a
library (``s: Session``, ``requests.Session()``, ``queue.Queue()``), what
one of a few factories makes (``logging.getLogger(name)``), and what a
library's function makes of literals alone (``boto3.client("s3")``,
``sqlite3.connect(":memory:")``): given nothing of the repository's, it
returns nothing of the repository's. Its type is spelled with its module
(``requests.Session``, ``boto3.client()``), and its methods are that
library's.

Not typing's constructs, nor mocks, which stand in for the repository's
own objects; not a function that loads code by name
(``importlib.import_module("app.x")``), nor an object that holds whatever
the repository puts in it (``threading.local()``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import tree_sitter as ts

if TYPE_CHECKING:
    from freshindex.indexer.scope_python import Name, Scope

Lookup = Callable[["Scope", str], tuple["Name | None", "Scope | None"]]


# modules whose names are no class a value is an instance of (typing's
# constructs), or whose instances stand in for the repository's (mocks)
_NOT_CLASSES = frozenset(
    {"typing", "typing_extensions", "collections.abc", "abc", "unittest.mock", "mock"}
)
_PLAIN = frozenset({"string", "concatenated_string", "integer", "float", "true", "false", "none"})
# functions that return the repository's own code from a name given as a literal
_LOADERS = frozenset(
    {
        "importlib.import_module",
        "importlib.reload",
        "pkgutil.resolve_name",
        "pydoc.locate",
        "django.apps.apps.get_model",
        "django.apps.apps.get_app_config",
        "django.utils.module_loading.import_string",
        "werkzeug.utils.import_string",
        "celery.current_app.signature",
    }
)
# classes whose instances hold whatever the repository puts in them
# (`already_generating = local()`, then `already_generating.stack.pop()`)
_HOLDERS = frozenset({"threading.local", "types.SimpleNamespace", "argparse.Namespace"})
# functions of the standard library that make an instance of a class
_FACTORIES = {
    "logging.getLogger": "logging.Logger",
    "re.compile": "re.Pattern",
    **dict.fromkeys(("re.match", "re.search", "re.fullmatch"), "re.Match"),
    "collections.defaultdict": "collections.defaultdict",
    "collections.deque": "collections.deque",
}


def is_outside(made: str) -> bool:
    """Whether a type builtin_type gives is a class from outside the
    repository (spelled with its module: ``requests.Session``)."""
    return "." in made


def _outside_spelled(
    n: ts.Node, scope: Scope, text: Callable[[ts.Node], str], lookup: Lookup
) -> str | None:
    """``Session`` of ``from requests import Session``, ``requests.Session``
    of ``import requests``, spelled from its module; None unless the
    import is of a module outside the repository."""
    written = text(n)
    head, _, rest = written.partition(".")
    bound, _where = lookup(scope, head)
    if bound is None or bound.what not in ("import", "module") or bound.path is not None:
        return None
    module = bound.module
    if not module or module.startswith(".") or module in _NOT_CLASSES:
        return None
    if bound.what == "module":
        return f"{module}.{rest}" if rest else None
    spelled = f"{module}.{bound.qualname or head}"
    return f"{spelled}.{rest}" if rest else spelled


def outside_class(
    n: ts.Node, scope: Scope, text: Callable[[ts.Node], str], lookup: Lookup
) -> str | None:
    """A class (CapWords) imported from outside the repository, as an
    annotation names it: its instances' methods are that library's."""
    spelled = _outside_spelled(n, scope, text, lookup)
    if spelled is None or spelled in _HOLDERS or not spelled.rpartition(".")[2][:1].isupper():
        return None
    return spelled


def outside_made(
    fn: ts.Node, scope: Scope, text: Callable[[ts.Node], str], lookup: Lookup, call: ts.Node
) -> str | None:
    """What a call of ``fn`` makes, when ``fn`` is a class from outside the
    repository (``Session()``, ``threading.Lock()``), one of _FACTORIES
    (``logging.getLogger(name)``), or a function from outside given only
    literals (``boto3.client("s3")``, ``sqlite3.connect(":memory:")``):
    given nothing of the repository's, it returns nothing of the
    repository's, unless it loads code by name (_LOADERS)."""
    spelled = _outside_spelled(fn, scope, text, lookup)
    if spelled is None or spelled in _HOLDERS:
        return None
    if spelled.rpartition(".")[2][:1].isupper():
        return spelled
    if spelled in _FACTORIES:
        return _FACTORIES[spelled]
    args = call.child_by_field_name("arguments")
    if spelled in _LOADERS or args is None or not all(map(_plain, args.named_children)):
        return None
    return f"{spelled}()"


def _plain(node: ts.Node) -> bool:
    """A literal, a keyword argument given one, or a list, tuple or dict of
    them; not a name, a call or a lambda, which may be the repository's."""
    if node.type in _PLAIN or node.type == "comment":
        return True
    if node.type == "keyword_argument":
        value = node.child_by_field_name("value")
        return value is not None and _plain(value)
    if node.type in ("list", "tuple"):
        return all(map(_plain, node.named_children))
    if node.type == "dictionary":
        return all(
            c.type == "pair" and all(map(_plain, c.named_children)) for c in node.named_children
        )
    return False
