"""A definition declared in another file: C calls bound through a
prototype, read from a built index and its overlay in bulk
(query/include_rows.py: one read of a name's rows serves every scope and
file a call is looked up in), and a Python stub or a TypeScript
declaration file beside its module."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.repos import build_template, copy_built, write_files

FILES: dict[str, str | bytes] = {
    "include/lib.h": "#pragma once\nint add(int a, int b);\n",
    "src/lib.c": '#include "lib.h"\nint add(int a, int b) { return a + b; }\n',
    "src/main.c": '#include "../include/lib.h"\nint main(void) { return add(1, 2); }\n',
    "src/alone.c": "int twice(int x) { return add(x, x); }\n",  # sees no prototype
    "py/version.py": "class Info:\n    def micro(self):\n        return 1\n",
    "py/version.pyi": "class Info:\n    def micro(self) -> int: ...\n",
    "py/use.py": "from py.version import Info\n\nInfo().micro()\nfrom py import make\nmake()\n",
    "py/__init__.py": "from py._impl import make\n",
    "py/__init__.pyi": "def make() -> int: ...\n",
    "py/_impl.py": "def make():\n    return 1\n",
    "js/index.js": "export function camel(s) {\n  return s;\n}\n",
    "js/index.d.ts": "export function camel(s: string): string;\n",
    "js/app.ts": 'import { camel } from "./index";\ncamel("x");\n',
}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory, prefect_api: str) -> tuple[Path, Path]:
    return build_template(tmp_path_factory.mktemp("prototypes"), FILES, shards=2)


def test_calls_bind_through_prototypes_in_the_index_and_the_overlay(
    template: tuple[Path, Path], tmp_path: Path, run_cli: Any
) -> None:
    repo, store = copy_built(template, tmp_path)
    # uncommitted: a second header declares add, and a new file includes it
    write_files(
        repo,
        {
            "include/more.h": "#pragma once\nint add(int a, int b);\n",
            "src/use.c": '#include "../include/more.h"\nint use(void) { return add(3, 4); }\n',
        },
    )
    code, out, err = run_cli("--repo", str(repo), "--store", store, "--json", "refs", "add")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["freshness"] == "overlay"
    bound = {(r["path"], r["startLine"]): r["via"] for r in doc["bound"]}
    assert "declared in include/lib.h, defined in src/lib.c" in bound[("src/main.c", 2)]
    assert "declared in include/more.h" in bound[("src/use.c", 2)]  # the overlay's
    # alone.c includes nothing: the one definition with external linkage
    assert ("src/alone.c", 1) in bound


def test_a_python_stub_and_its_module_answer_one_group(
    template: tuple[Path, Path], tmp_path: Path, run_cli: Any
) -> None:
    """attrs ships `_version_info.pyi` beside `_version_info.py`: the stub's
    definition, asked by its id, has the module's references."""
    repo, store = copy_built(template, tmp_path)
    code, out, err = run_cli("--repo", str(repo), "--store", store, "--json", "refs", "micro")
    assert code == 0, err
    doc = json.loads(out)
    groups = {g["definition"]["path"]: g for g in doc["groups"]}
    assert set(groups) == {"py/version.py", "py/version.pyi"}
    for g in groups.values():
        assert [(r["path"], r["startLine"]) for r in g["bound"]] == [("py/use.py", 3)]
    stub = groups["py/version.pyi"]["definition"]["symbolId"]
    code, out, err = run_cli("--repo", str(repo), "--store", store, "--json", "refs", "--id", stub)
    assert code == 0, err
    assert [(r["path"], r["startLine"]) for r in json.loads(out)["bound"]] == [("py/use.py", 3)]
    # a package's stub declares what its __init__ re-exports from a module
    code, out, err = run_cli("--repo", str(repo), "--store", store, "--json", "refs", "make")
    assert code == 0, err
    groups = {g["definition"]["path"]: g for g in json.loads(out)["groups"]}
    assert ("py/use.py", 5) in [
        (r["path"], r["startLine"]) for r in groups["py/__init__.pyi"]["bound"]
    ]


def test_a_declaration_file_and_the_javascript_beside_it_answer_one_group(
    template: tuple[Path, Path], tmp_path: Path, run_cli: Any
) -> None:
    """A package of hand-written JavaScript with its `index.d.ts`: a
    TypeScript importer's `./index` resolves to the declaration, and the
    JavaScript function has those references too."""
    repo, store = copy_built(template, tmp_path)
    code, out, err = run_cli("--repo", str(repo), "--store", store, "--json", "refs", "camel")
    assert code == 0, err
    groups = {g["definition"]["path"]: g for g in json.loads(out)["groups"]}
    assert set(groups) == {"js/index.js", "js/index.d.ts"}
    for g in groups.values():
        assert ("js/app.ts", 2) in [(r["path"], r["startLine"]) for r in g["bound"]]
