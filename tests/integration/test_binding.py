"""References bound to the definition they name (indexer/bind_python.py,
freshindex/query/link.py, freshindex/query/references.py).

Binder tests read one file's rows; linker tests link rows of several files
without a build; the end-to-end tests build a small package and ask `refs`.

Over 400 lines as one concept: every binding rule's cases, read the same three ways.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from freshindex.indexer.extract import extract
from freshindex.indexer.resolve import PathIndex
from freshindex.indexer.schema import EDGES, SYMBOLS
from freshindex.query.link import table_linker
from tests.linked import rows_of
from tests.repos import build_template, copy_built, make_repo

FILES: dict[str, str | bytes] = {
    # a React component exported as default, re-exported by a barrel, used
    # as an element under other names
    "web/Banner.tsx": "export default function Banner() {\n  return null;\n}\n",
    "web/index.ts": 'export { default as Banner } from "./Banner";\n',
    "web/page.tsx": 'import Hero from "./Banner";\nimport { Banner } from "./index";\n'
    "export const Page = () => <main><Hero /><Banner /></main>;\n",
    "web/store.ts": "export class Store {\n  count = 0;\n  bump() {\n    this.count += 1;\n  }\n}\n",
    # a C function an ops table names, one passed as an argument, one that
    # other files may name, one that only this file could
    "drv/ops.c": "struct ops { int (*open)(void); };\n"
    "static int drv_open(void) { return 0; }\n"
    "static int drv_irq(void) { return 0; }\n"
    "static struct ops drv_ops = { .open = drv_open, .owner = THIS_MODULE };\n"
    "void drv_init(void) { request_irq(7, drv_irq); }\n"
    "int drv_exit(void) { return 0; }\n"
    "static int drv_spare(void) { return 0; }\n",
    "app/__init__.py": "",
    "app/jobs.py": "class Job:\n    def run_job(self):\n        pass\n\n\ndef go(j):\n    j.run_job()\n",
    "app/models/__init__.py": "from .base import Model, helper\nfrom .mixins import *\n",
    "app/models/base.py": (
        "class Model:\n"
        "    def save(self):\n"
        "        return self.validate()\n"
        "\n"
        "    def validate(self):\n"
        "        return True\n"
        "\n"
        "    @classmethod\n"
        "    def create(cls):\n"
        "        return cls.build()\n"
        "\n"
        "    @classmethod\n"
        "    def build(cls):\n"
        "        return cls()\n"
        "\n"
        "\n"
        "def helper(x):\n"
        "    return x\n"
    ),
    "app/models/mixins.py": "class Audited:\n    def audit(self):\n        pass\n",
    "app/models/user.py": (
        "from app.models import Model, Audited\n"
        "\n"
        "\n"
        "class User(Model, Audited):\n"
        "    def save(self):\n"
        "        super().save()\n"
        "        self.audit()\n"
        "        return self.validate()\n"
        "\n"
        "\n"
        "class Other:\n"
        "    def save(self):\n"
        "        pass\n"
    ),
    "app/timeouts.py": (
        "class Timeout:\n"
        "    def as_dict(self):\n"
        "        return {}\n"
        "\n\n"
        "class Default:\n"
        "    pass\n"
        "\n\n"
        "def build(timeout: Timeout | Default):\n"
        "    return timeout.as_dict()\n"  # 11
        "\n\n"
        "class Spare:\n"
        "    pass\n"
        "\n\n"
        "def either(t: Default | Spare):\n"
        "    return t.as_dict()\n"  # 19: neither has one
        "\n\n"
        "def make() -> Timeout:\n"
        "    return Timeout()\n"
        "\n\n"
        "def both(t: Timeout, ok):\n"
        "    v = t if ok else make()\n"
        "    return v.as_dict()\n"  # 28: two values, one method
    ),
    "app/views.py": (
        "from typing import Optional\n"
        "\n"
        "from app.models.user import User, Other\n"
        "from app.models import helper as h\n"
        "import app.models.base as base\n"
        "\n"
        "\n"
        "def show(u: User, thing) -> Optional[User]:\n"
        "    u.save()\n"
        "    User.save(u)\n"
        "    Other().save()\n"
        "    thing.save()\n"
        "    h(1)\n"
        "    base.helper(2)\n"
        "    try:\n"
        "        pass\n"
        "    except LookupError:\n"
        "        pass\n"
        "    if isinstance(u, User):\n"
        "        return u\n"
        "    return None\n"
        "\n"
        "\n"
        "def register(table):\n"
        '    table["show"] = show\n'
        "    local = 3\n"
        "    return local\n"
    ),
}


def edge(edges: list[dict[str, Any]], path: str, line: int, target: str) -> dict[str, Any]:
    found = [
        e for e in edges if e["path"] == path and e["start_line"] == line and e["target"] == target
    ]
    assert len(found) == 1, (path, line, target, found)
    return found[0]


def linked(
    files: dict[str, str | bytes], language: str = "python"
) -> dict[tuple[str, int, str], tuple[str, str | None]]:
    """(path, line, target) -> (binding, qualname of the definition it names)."""
    symbols, edges = rows_of(files, language)
    linker = table_linker(symbols, edges)
    out = {}
    for e in edges:
        link = linker.link(e["binding"], e["via"], e["resolved_path"], e["target_qualname"])
        qual = f"{link.symbol['path']}::{link.symbol['qualname']}" if link.symbol else None
        out[(e["path"], e["start_line"], e["target"])] = (link.binding, qual)
    return out


def test_binder_claims_follow_python_scoping() -> None:
    _symbols, edges = rows_of(FILES)
    views = "app/views.py"
    # an annotated parameter's method (a chain: `save` of a User instance,
    # indexer/chains.py), a class attribute, a constructor's method
    assert edge(edges, views, 9, "save")["target_qualname"] == "User().save"
    assert edge(edges, views, 10, "save")["target_qualname"] == "User.save"
    assert edge(edges, views, 11, "save")["target_qualname"] == "Other().save"
    # an untyped receiver is a candidate: never a guess
    untyped = edge(edges, views, 12, "save")
    assert (untyped["binding"], untyped["target_qualname"]) == ("candidate", None)
    # an aliased import keeps the name it imports
    alias = edge(edges, views, 13, "h")
    assert (alias["resolved_path"], alias["target_qualname"]) == (
        "app/models/__init__.py",
        "helper",
    )
    assert edge(edges, views, 14, "helper")["resolved_path"] == "app/models/base.py"
    # uses that are not calls: annotations, isinstance, a value stored in a dict
    kinds = {(e["start_line"], e["target"]): e["kind"] for e in edges if e["path"] == views}
    assert kinds[(8, "User")] == "use"
    assert kinds[(19, "User")] == "use"
    assert kinds[(25, "show")] == "use"
    # builtins are external; a local variable read names no definition
    assert edge(edges, views, 19, "isinstance")["binding"] == "external"
    assert (27, "local") not in kinds
    assert (17, "LookupError") not in kinds


def test_linker_follows_reexports_bases_and_super() -> None:
    got = linked(FILES)
    user, views = "app/models/user.py", "app/views.py"
    # super() starts at the bases; the base came through a package re-export
    assert got[(user, 6, "save")] == ("bound", "app/models/base.py::Model.save")
    # an inherited method through `from .mixins import *` in the package
    assert got[(user, 7, "audit")] == ("bound", "app/models/mixins.py::Audited.audit")
    assert got[(user, 8, "validate")] == ("bound", "app/models/base.py::Model.validate")
    assert got[(views, 9, "save")] == ("bound", "app/models/user.py::User.save")
    assert got[(views, 13, "h")] == ("bound", "app/models/base.py::helper")
    assert got[(views, 12, "save")] == ("candidate", None)
    # cls.build() inside a classmethod
    assert got[("app/models/base.py", 10, "build")] == ("bound", "app/models/base.py::Model.build")


def test_python_2_super_names_its_class_and_starts_at_the_bases() -> None:
    """dateutil's `super(tzfile, self).__init__()`: a read of tzfile, and
    the call goes to the base's method as `super().__init__()` does."""
    files: dict[str, str | bytes] = {
        "tz.py": (
            "class _tzinfo:\n    def __init__(self):\n        pass\n\n\n"
            "class tzfile(_tzinfo):\n"
            "    def __init__(self):\n"
            "        super(tzfile, self).__init__()\n"  # 8
        ),
    }
    got = linked(files)
    assert got[("tz.py", 8, "tzfile")] == ("bound", "tz.py::tzfile")
    assert got[("tz.py", 8, "__init__")] == ("bound", "tz.py::_tzinfo.__init__")


def test_a_nested_class_read_on_the_way_is_a_reference() -> None:
    """attrs' `props.hashability is ClassProps.Hashability.HASHABLE`: the
    enum nested in ClassProps is read too."""
    files: dict[str, str | bytes] = {
        "m.py": (
            "import enum\n\n\n"
            "class Props:\n"
            "    class Hash(enum.Enum):\n"
            "        YES = 1\n\n\n"
            "def f(p):\n"
            "    return p.h is Props.Hash.YES\n"  # 10
        ),
    }
    got = linked(files)
    assert got[("m.py", 10, "Props")] == ("bound", "m.py::Props")
    assert got[("m.py", 10, "Hash")] == ("bound", "m.py::Props.Hash")
    assert got[("m.py", 10, "YES")] == ("bound", "m.py::Props.Hash.YES")


def test_a_union_of_classes_may_be_either() -> None:
    """griffe's `obj: Object | Alias`: `obj.package` reads either class's
    property, as a type checker reads the union; an assigned value is kept
    beside the annotation (httpx's `timeout: TimeoutTypes | UseClientDefault`
    then `timeout = Timeout(timeout)`)."""
    files: dict[str, str | bytes] = {
        "m.py": (
            "from typing import Union\n\n\n"
            "class Object:\n    def package(self):\n        pass\n\n\n"
            "class Alias:\n    def package(self):\n        pass\n\n\n"  # 9
            "class Timeout:\n    def as_dict(self):\n        pass\n\n\n"  # 14
            "def f(obj: Object | Alias, other: Union[Object, None, 'Alias'], t: Alias | Object):\n"
            "    obj.package()\n"  # 20
            "    other.package()\n"
            "    t = Timeout()\n"
            "    t.as_dict()\n"  # 23
        ),
    }
    symbols, edges = rows_of(files, "python")
    linker = table_linker(symbols, edges)
    got: dict[tuple[int, str], set[str | None]] = {}
    for e in edges:
        link = linker.link(e["binding"], e["via"], e["resolved_path"], e["target_qualname"])
        qual = link.symbol["qualname"] if link.symbol else None
        got.setdefault((e["start_line"], e["target"]), set()).add(qual)
    assert got[(20, "package")] == got[(21, "package")] == {"Object.package", "Alias.package"}
    assert "Timeout.as_dict" in got[(23, "as_dict")]


def test_a_claim_whose_definition_is_gone_is_a_candidate() -> None:
    files = dict(FILES)
    files["app/models/__init__.py"] = "from .mixins import *\n"  # the re-export removed
    got = linked(files)
    assert got[("app/views.py", 13, "h")][0] == "candidate"
    assert got[("app/models/user.py", 6, "save")][0] == "candidate"


def test_names_a_star_import_brings_bind_through_it() -> None:
    files: dict[str, str | bytes] = {
        "pkg/__init__.py": "",
        "pkg/helpers.py": "def helper():\n    pass\n\n\nclass Tool:\n    def run(self):\n        pass\n",
        "pkg/more.py": "from .helpers import *\n",
        "main.py": "from pkg.more import *\nfrom os.path import *\n\n"
        "helper()\nTool.run(None)\nmissing()\njoin('a')\nTABLE = {Tool: helper}\n"
        "print(__file__)\n",
        "plain.py": "helper()\n",
    }
    got = linked(files)
    # through a chain of two star imports, and into a class
    assert got[("main.py", 4, "helper")] == ("bound", "pkg/helpers.py::helper")
    assert got[("main.py", 5, "run")] == ("bound", "pkg/helpers.py::Tool.run")
    # a name no star import of the repository defines is not made up: the
    # star import of a module outside the repository is the one left to
    # bring it (os.path's join; `missing` too, as Python would look there)
    assert got[("main.py", 6, "missing")] == ("external", None)
    assert got[("main.py", 7, "join")] == ("external", None)
    # read, not called: through the star imports too, but not a module's
    # own attribute such as __file__
    assert got[("main.py", 8, "Tool")] == ("bound", "pkg/helpers.py::Tool")
    assert got[("main.py", 8, "helper")] == ("bound", "pkg/helpers.py::helper")
    assert ("main.py", 9, "__file__") not in got
    # a file without a star import claims nothing for an unknown name
    assert got[("plain.py", 1, "helper")] == ("candidate", None)


def test_raising_a_class_calls_it_and_raising_an_instance_reads_it() -> None:
    files: dict[str, str | bytes] = {
        "errs.py": "class Gone(Exception):\n    pass\n",
        "m.py": "import errs\nfrom errs import Gone\n\n"
        "class A(Exception):\n    class B(Exception):\n        pass\n\n"
        "alias = A\nINSTANCE = A()\n\n"
        "def f(err):\n    raise A\n    raise A.B from err\n    raise errs.Gone\n"
        "    raise Gone\n    raise alias\n    raise err\n    raise ValueError\n"
        "    raise INSTANCE\n    raise make().Err\n",
    }
    _symbols, edges = rows_of(files)
    kinds = {(e["start_line"], e["target"]): e["kind"] for e in edges if e["path"] == "m.py"}
    for line, name in ((12, "A"), (13, "B"), (14, "Gone"), (15, "Gone"), (16, "A")):
        assert kinds[(line, name)] == "call", (line, name)
    got = linked(files)
    assert got[("m.py", 13, "B")] == ("bound", "m.py::A.B")
    assert got[("m.py", 14, "Gone")] == ("bound", "errs.py::Gone")
    assert got[("m.py", 16, "A")] == ("bound", "m.py::A")  # through the alias's value
    # a parameter, a builtin, a module-level instance: no call
    assert (17, "err") not in kinds and (18, "ValueError") not in kinds
    assert kinds[(19, "INSTANCE")] == "use"
    assert kinds.get((20, "Err")) != "call"  # what make() returns is not seen


def test_files_that_import_star_from_each_other_are_searched_once() -> None:
    # each path through twelve such files was walked: hours for one name
    files: dict[str, str | bytes] = {
        f"m{i}.py": "".join(f"from m{j} import *\n" for j in range(12) if j != i) for i in range(12)
    }
    files["m0.py"] = f"{files['m0.py']!s}missing()\ndef found():\n    pass\n"
    files["m5.py"] = f"{files['m5.py']!s}found()\n"
    got = linked(files)
    assert got[("m0.py", 12, "missing")] == ("candidate", None)
    assert got[("m5.py", 12, "found")] == ("bound", "m0.py::found")


def test_deep_and_cyclic_chains_end() -> None:
    files: dict[str, str | bytes] = {
        "a/__init__.py": "from b import thing\n",
        "b/__init__.py": "from a import thing\n",
        "c.py": "from a import thing\n\nthing()\n",
        "d.py": "class A(B):\n    pass\n\n\nclass B(A):\n    def m(self):\n        self.x()\n",
    }
    got = linked(files)
    assert got[("c.py", 3, "thing")][0] == "candidate"
    assert got[("d.py", 7, "x")][0] == "candidate"


@pytest.fixture(scope="module")
def template(prefect_api: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return build_template(tmp_path_factory.mktemp("binding"), FILES)


@pytest.fixture
def built(template: tuple[Path, Path], tmp_path: Path, run_cli: Any) -> tuple[Path, str, Any]:
    repo, store = copy_built(template, tmp_path)

    def refs(*argv: str, kind: str = "refs") -> dict[str, Any]:
        code, out, err = run_cli("--repo", str(repo), "--store", store, "--json", kind, *argv)
        assert code == 0, err
        return json.loads(out)  # type: ignore[no-any-return]

    return repo, store, refs


def places(rows: list[dict[str, Any]]) -> list[tuple[str, int]]:
    return [(r["path"], r["startLine"]) for r in rows]


def test_refs_of_a_method_are_bound_then_candidates(built: tuple[Path, str, Any]) -> None:
    _repo, _store, q = built
    doc = q("User.save")
    assert [d["qualname"] for d in doc["definitions"]] == ["User.save"]
    assert places(doc["bound"]) == [("app/views.py", 9), ("app/views.py", 10)]
    assert ("app/views.py", 12) in places(doc["candidates"])
    # bound to another `save` is never shown for this one
    assert ("app/views.py", 11) not in places(doc["results"])
    assert all(r["binding"] == "bound" and r["via"] for r in doc["bound"])
    assert all(r["targetSymbolId"] == doc["definitions"][0]["symbolId"] for r in doc["bound"])
    assert [r["binding"] for r in doc["results"]] == ["bound", "bound"] + ["candidate"] * len(
        doc["candidates"]
    ) + ["external"] * len(doc["external"])


def test_refs_of_a_default_export_follow_it_under_any_name(built: tuple[Path, str, Any]) -> None:
    _repo, _store, q = built
    doc = q("Banner")
    assert places(doc["bound"]) == [
        ("web/index.ts", 1),  # export { default as Banner }
        ("web/page.tsx", 1),  # import Hero from "./Banner"
        ("web/page.tsx", 2),
        ("web/page.tsx", 3),  # <Hero />
        ("web/page.tsx", 3),  # <Banner />
    ]
    assert doc["candidates"] == []


def test_a_qualifier_narrows_and_a_bare_name_groups(built: tuple[Path, str, Any]) -> None:
    _repo, _store, q = built
    assert [r["qualname"] for r in q("Model.save", kind="defs")["results"]] == ["Model.save"]
    bare = q("save")
    assert sorted(g["definition"]["qualname"] for g in bare["groups"]) == [
        "Model.save",
        "Other.save",
        "User.save",
    ]
    by_def = {g["definition"]["qualname"]: places(g["bound"]) for g in bare["groups"]}
    assert by_def["Other.save"] == [("app/views.py", 11)]
    assert by_def["Model.save"] == [("app/models/user.py", 6)]


def test_other_target_forms(built: tuple[Path, str, Any]) -> None:
    _repo, _store, q = built
    # a module path through the package's re-export
    dotted = q("app.models.Model.save", kind="defs")["results"]
    assert [(r["path"], r["qualname"]) for r in dotted] == [("app/models/base.py", "Model.save")]
    at_line = q("app/models/user.py:6")
    assert [d["qualname"] for d in at_line["definitions"]] == ["User.save"]
    by_id = q("--id", at_line["definitions"][0]["symbolId"])
    assert places(by_id["bound"]) == places(at_line["bound"])
    # an aliased import's calls are found under the alias
    helper = q("helper")
    assert ("app/views.py", 13) in places(helper["bound"])


def test_overlay_rebinds_on_a_dirty_rename(built: tuple[Path, str, Any]) -> None:
    """The definition renamed in the worktree: callers in unchanged files lose
    their binding in the same answer, and bind again when they follow."""
    repo, _store, q = built
    user = repo / "app/models/user.py"
    user.write_text(
        user.read_text().replace("class Other:\n    def save", "class Other:\n    def store")
    )
    doc = q("Other.store")
    assert doc["freshness"] == "overlay"
    assert doc["bound"] == []
    gone = q("save")
    assert ("app/views.py", 11) in places(gone["candidates"])
    views = repo / "app/views.py"
    views.write_text(views.read_text().replace("Other().save()", "Other().store()"))
    assert places(q("Other.store")["bound"]) == [("app/views.py", 11)]


def test_typescript_this_and_imports_bind() -> None:
    files: dict[str, str | bytes] = {
        "src/util.ts": "export function helper() {\n  return 1;\n}\n",
        "src/repo.ts": (
            'import { helper } from "./util";\n'
            "export class Repo {\n"
            "  save() { return this.validate(); }\n"
            "  validate() { return helper(); }\n"
            "}\n"
            "export function run(obj: any) { return obj.helper(); }\n"
        ),
    }
    symbols, edges = rows_of(files, "typescript")
    linker = table_linker(symbols, edges)

    def named(line: int, target: str) -> tuple[str, str | None]:
        e = edge(edges, "src/repo.ts", line, target)
        link = linker.link(e["binding"], e["via"], e["resolved_path"], e["target_qualname"])
        return link.binding, link.symbol["qualname"] if link.symbol else None

    assert named(3, "validate") == ("bound", "Repo.validate")
    assert named(4, "helper") == ("bound", "helper")
    assert named(6, "helper") == ("candidate", None)  # a member of an unknown object


@pytest.mark.parametrize("language", ["javascript", "typescript"])
def test_a_name_passed_as_a_value_binds_unless_a_function_declares_it(language: str) -> None:
    """`app.get("/", listUsers)` is a reference to listUsers: its callers are
    express's, and a `refs` without it would say nothing uses the handler.
    A parameter or local of the same name is not the file's definition."""
    ext = "ts" if language == "typescript" else "js"
    files: dict[str, str | bytes] = {
        f"lib.{ext}": "export function helper() {}\n",
        f"app.{ext}": (
            'import { helper } from "./lib";\n'  # 1
            "var req = require('./lib');\n"
            "function listUsers() {}\n"
            "const DEFAULTS = { a: 1 };\n"
            "export function make(save = helper) {\n"  # 5
            '  app.get("/users", listUsers);\n'
            "  const table = { list: listUsers, helper };\n"
            "  const all = [listUsers, ...DEFAULTS];\n"
            "  return flag ? listUsers : helper ?? DEFAULTS;\n"
            "}\n"  # 10
            "export const handle = function (req, listUsers) {\n"
            "  use(req, listUsers);\n"
            "  req();\n"
            "  [1].map((helper) => helper(1));\n"
            "};\n"  # 15
            "function g() {\n"
            "  let local = 1;\n"
            "  use(local);\n"
            "}\n"
        ),
    }
    got = linked_calls(files, language, kinds=("call", "use"))
    uses = {
        (line, name, col): how
        for (path, line, name, col), how in got.items()
        if path == f"app.{ext}"
    }
    listed = {(line, name) for line, name, _col in uses}
    here = ("bound", f"app.{ext}::listUsers")
    there = ("bound", f"lib.{ext}::helper")
    assert uses[(6, "listUsers", 20)] == here
    assert uses[(5, "helper", 28)] == there
    assert uses[(7, "listUsers", 24)] == here and uses[(7, "helper", 35)] == there
    assert uses[(8, "listUsers", 15)] == here
    assert uses[(8, "DEFAULTS", 29)] == ("bound", f"app.{ext}::DEFAULTS")
    assert uses[(9, "listUsers", 16)] == here and uses[(9, "helper", 28)] == there
    # the function's own parameters: no row for a read, no binding for a call
    assert (12, "req") not in listed and (12, "listUsers") not in listed
    assert uses[(13, "req", 2)] == ("candidate", None)
    assert uses[(14, "helper", 22)] == ("candidate", None)
    # a read of a variable that holds no definition names none
    assert (18, "local") not in listed


@pytest.mark.parametrize("language, ext", [("tsx", "tsx"), ("javascript", "js")])
def test_a_method_passed_as_this_member_is_a_reference(language: str, ext: str) -> None:
    """`onClick={this.handleClick}`, `addEventListener("resize",
    this.onResize)`: a class component's handlers are not unused."""
    files: dict[str, str | bytes] = {
        f"App.{ext}": (
            "class App extends Component {\n"
            "  handleClick() {}\n"
            "  onSave = () => {};\n"
            "  render() {\n"  # 4
            "    return <button onClick={this.handleClick} onBlur={this.onSave} />;\n"
            "  }\n"
            "  mount() {\n"  # 7
            '    window.addEventListener("resize", this.handleClick);\n'
            "    const f = this.onSave;\n"
            "    return { save: this.onSave, props: this.props };\n"  # 10
            "  }\n"
            "}\n"
        ),
    }
    got = linked_calls(files, language, kinds=("use",))
    uses = {(line, name): how for (_path, line, name, _col), how in got.items()}
    click, save = ("bound", f"App.{ext}::App.handleClick"), ("bound", f"App.{ext}::App.onSave")
    assert uses[(5, "handleClick")] == click and uses[(5, "onSave")] == save
    assert uses[(8, "handleClick")] == click
    assert uses[(9, "onSave")] == save and uses[(10, "onSave")] == save
    # React's props: a base outside the repository has it
    assert uses[(10, "props")][0] != "bound"


def test_this_in_an_object_literals_method_is_the_object() -> None:
    """koel's stores (`export const themeStore = { setTheme() {...} }`) and
    a Vue Options API component, whose `methods` and `computed` share its
    `this`; an arrow property's `this` is the one around it, and a watcher
    is named after what it watches, not a member."""
    files: dict[str, str | bytes] = {
        "store.js": (
            "export const store = {\n"
            "  load() { return 1; },\n"
            "  run() { return this.load(); },\n"  # 3
            "  go: function () { return [1].map(() => this.load()); },\n"
            "  arrow: () => this.load(),\n"  # 5
            "};\n"
            "export default {\n"
            "  props: ['value'],\n"
            "  watch: { value(v) { this.sync(v); } },\n"  # 9
            "  computed: { full: { get() { return this.sync(1); } }, total() { return 2; } },\n"
            "  methods: { sync(v) { const t = this.total; return this.value; } },\n"  # 11
            "  mounted() { window.addEventListener('resize', this.sync); this.missing(); },\n"
            "};\n"
        ),
    }
    got = linked_calls(files, "javascript", kinds=("call", "use"))
    rows = {(line, name): how for (_path, line, name, _col), how in got.items()}
    load, sync = ("bound", "store.js::store.load"), ("bound", "store.js::sync")
    assert rows[(3, "load")] == rows[(4, "load")] == load
    assert rows[(5, "load")][0] == "candidate"
    assert rows[(9, "sync")] == rows[(10, "sync")] == rows[(12, "sync")] == sync
    assert rows[(11, "total")] == ("bound", "store.js::total")
    assert (11, "value") not in rows  # the prop: the watcher is not a member
    assert rows[(12, "missing")][0] == "candidate"


def test_a_module_or_object_member_passed_as_a_value_is_a_reference() -> None:
    """`router.get("/", users.list)`: an express app's handlers are
    registered through the module that holds them."""
    files: dict[str, str | bytes] = {
        "routes.js": (
            'const users = require("./users");\n'
            'import * as posts from "./posts";\n'
            'import { helpers } from "./helpers";\n'
            'app.get("/u", users.list);\n'  # 4: CommonJS
            'app.get("/p", posts.list);\n'  # 5: a namespace import
            "router.use(helpers.auth);\n"  # 6: an imported object's method
            "module.exports = { go: users.list };\n"  # 7
            "function h(req, res) { res.json(req.body); }\n"  # 8: a parameter's member
        ),
        "users.js": "exports.list = function (req, res) {};\n",
        "posts.js": "export function list(req, res) {}\n",
        "helpers.js": "export const helpers = { auth(req, res, next) {} };\n",
    }
    got = linked_calls(files, "javascript", kinds=("use",))
    uses = {(line, name): how for (path, line, name, _c), how in got.items() if path == "routes.js"}
    assert uses == {
        (4, "list"): ("bound", "users.js::list"),
        (5, "list"): ("bound", "posts.js::list"),
        (6, "auth"): ("bound", "helpers.js::helpers.auth"),
        (7, "list"): ("bound", "users.js::list"),
    }


def test_a_commonjs_member_import_a_bound_function_and_a_field_are_references() -> None:
    """express's `var compileETag = require("./utils").compileETag`,
    `onerror: logerror.bind(this)`, hono's `errorHandler = errorHandler`."""
    files: dict[str, str | bytes] = {
        "lib/app.js": (
            'var compileETag = require("./utils").compileETag;\n'
            "function logerror(err) {}\n"
            "function Base() {}\n"
            "function Child() { Base.call(this); }\n"  # 4
            "var app = { onerror: logerror.bind(this) };\n"
            "compileETag(true);\n"  # 6
            "class H { handler = logerror; }\n"
        ),
        "lib/utils.js": "exports.compileETag = function (val) {};\n",
    }
    got = linked_calls(files, "javascript", kinds=("call", "use"))
    app = {(line, name): how for (path, line, name, _c), how in got.items() if path == "lib/app.js"}
    assert app[(6, "compileETag")] == ("bound", "lib/utils.js::compileETag")
    assert app[(4, "Base")] == ("bound", "lib/app.js::Base")
    assert app[(5, "logerror")] == app[(7, "logerror")] == ("bound", "lib/app.js::logerror")


def test_a_package_submodule_read_as_its_attribute_types_a_value() -> None:
    """requests' tests: `jar = requests.cookies.RequestsCookieJar()` where
    requests/__init__.py never imports cookies itself."""
    files: dict[str, str | bytes] = {
        "pkg/__init__.py": "from .api import get\n",
        "pkg/api.py": "from . import cookies\ndef get(): pass\n",
        "pkg/cookies.py": "class Jar:\n    def keys(self):\n        return []\n",
        "t.py": "import pkg\ndef f():\n    jar = pkg.cookies.Jar()\n    jar.keys()\n",
    }
    got = linked_calls(files, "python")
    assert got[("t.py", 4, "keys", 8)] == ("bound", "pkg/cookies.py::Jar.keys")


def test_a_kotlin_top_level_function_of_the_package_binds_from_another_file() -> None:
    """`checkNull(x)` in ClassJsonAdapter.kt, defined in Util.kt of the same
    package: a Kotlin package's top-level functions need no import."""
    files: dict[str, str | bytes] = {
        "src/com/ex/Util.kt": "package com.ex\n\nfun checkNull(v: Any?) {}\nfun helper() = 1\n",
        "src/com/ex/A.kt": (
            "package com.ex\n\n"
            "class A {\n"  # 3
            "  fun f(r: Any?, helper: () -> Int) {\n"
            "    checkNull(r)\n"  # 5
            "    helper()\n"  # 6: the parameter
            "    val checkNull = { x: Any? -> }\n"
            "    checkNull(r)\n"  # 8: the local
            "    listOf(1)\n"  # 9: Kotlin's own
            "  }\n"
            "}\n"
            "class B : Base() {\n  fun g() { helper() }\n}\n"  # 13: maybe Base's
            "open class Known { fun own() = 1 }\n"
            "class C : Known() {\n  fun h() { helper() + own() }\n}\n"  # 17
        ),
    }
    got = linked_calls(files, "kotlin")
    a = {
        (line, name): how
        for (path, line, name, _c), how in got.items()
        if path == "src/com/ex/A.kt"
    }
    assert a[(5, "checkNull")] == ("bound", "src/com/ex/Util.kt::checkNull")
    assert a[(6, "helper")] == a[(8, "checkNull")] == ("candidate", None)
    assert a[(9, "listOf")] == ("external", None)  # no function of the package has the name
    # a base outside the repository may have the member, which Kotlin calls first
    assert a[(13, "helper")] == ("candidate", None)
    # every base known and none has it: the package's; a base's own member: the base's
    assert a[(17, "helper")] == ("bound", "src/com/ex/Util.kt::helper")
    assert a[(17, "own")] == ("bound", "src/com/ex/A.kt::Known.own")


def test_a_java_static_import_names_the_class_member() -> None:
    """`import static com.ex.Util.helper;` then `helper(1)`: Util.helper,
    not a class com/ex/Util/helper.java outside the repository; a name two
    static imports bring is an overload the arguments choose."""
    files: dict[str, str | bytes] = {
        "src/com/ex/Util.java": "package com.ex;\npublic class Util {\n"
        "  public static int helper(int x) { return x; }\n"
        "  public static void check(Object o) {}\n}\n",
        "src/com/ex/other/A.java": (
            "package com.ex.other;\n"
            "import static com.ex.Util.helper;\n"  # 2
            "import static com.ex.Util.check;\n"
            "import static org.assertj.Assertions.check;\n"  # 4
            "import com.ex.Util;\n"
            "class A {\n"
            "  int f() { helper(1); Util.helper(2); check(this); return 0; }\n"  # 7
            "}\n"
        ),
    }
    got = linked_calls(files, "java", kinds=("call", "import"))
    a = {
        (line, name, col): how
        for (path, line, name, col), how in got.items()
        if path.endswith("A.java")
    }
    helper = ("bound", "src/com/ex/Util.java::Util.helper")
    assert a[(2, "helper", 26)] == helper
    assert a[(7, "helper", 12)] == a[(7, "helper", 28)] == helper
    assert a[(7, "check", 39)] == ("candidate", None)


def test_a_vue_component_is_indexed_by_its_script_and_template() -> None:
    """koel's components: composables called in `<script setup>`, and a
    handler only the template calls (`@click="showEmbed"`)."""
    files: dict[str, str | bytes] = {
        "tsconfig.json": '{"compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["src/*"]}}}',
        "src/composables/useDownload.ts": "export function useDownload() { return 1 }\n",
        "src/components/Menu.vue": (
            "<template>\n"
            '  <button v-if="ready" @click="showEmbed">{{ label(item.showEmbed) }}</button>\n'
            "</template>{{ useDownload() }}\n\n"
            '<script lang="ts" setup>\n'  # 5
            "import { useDownload } from '@/composables/useDownload'\n"
            "const ready = useDownload()\n"
            "const showEmbed = () => {}\n"  # 8
            "function label(x: unknown) { return String(x) }\n"
            "</script>\n\n<style>\n.showEmbed { color: red }\n</style>\n"
        ),
    }
    got = linked_calls(files, "typescript", kinds=("call", "use"))
    menu = {
        (line, name, col): how
        for (path, line, name, col), how in got.items()
        if path.endswith(".vue")
    }
    use = ("bound", "src/composables/useDownload.ts::useDownload")
    assert menu[(7, "useDownload", 14)] == use
    here = "src/components/Menu.vue::"
    assert menu[(2, "ready", 16)] == ("bound", here + "ready")
    assert menu[(2, "showEmbed", 31)] == ("bound", here + "showEmbed")
    assert menu[(2, "label", 45)] == ("bound", here + "label")
    assert menu[(3, "useDownload", 14)] == use  # an import the template reads
    # a member's name and the style's class are none
    assert [k for k in menu if k[1] == "showEmbed"] == [(2, "showEmbed", 31)]


def test_a_go_name_passed_as_a_value_is_a_reference() -> None:
    """`http.HandleFunc("/", list)`: the handler's references include it."""
    files: dict[str, str | bytes] = {
        "go.mod": "module example.com/m\n\ngo 1.21\n",
        "pkg/pkg.go": "package pkg\n\nfunc Serve() {}\n",
        "util.go": "package main\n\nfunc use(xs ...any) {}\n",
        "main.go": (
            "package main\n\n"
            'import (\n\t"net/http"\n\n\t"example.com/m/pkg"\n)\n\n'  # 3-7
            "type S struct{ Handler func() }\n\n"  # 9
            "var table = S{Handler: list}\n\n"  # 11
            "func list() {}\n\n"  # 13
            "func main() {\n"  # 15
            '\thttp.HandleFunc("/", list)\n'
            "\tr := &http.Request{}\n"
            "\tuse(r, r.URL, nil, http.StatusOK, table, []func(){list, pkg.Serve})\n"
            "}\n\n"
            "func other(list int) { use(list) }\n"  # 21
        ),
    }
    got = linked_calls(files, "go", kinds=("use",))
    uses = {(line, name): how for (path, line, name, _col), how in got.items() if path == "main.go"}
    here = ("bound", "main.go::list")
    assert uses[(11, "list")] == here and uses[(16, "list")] == here
    assert uses[(18, "list")] == here
    assert uses[(18, "Serve")] == ("bound", "pkg/pkg.go::Serve")
    assert uses[(18, "table")] == ("bound", "main.go::table")
    # a key is no use; a local, a field read on it, nil, an outside
    # package's constant and a parameter hiding `list` write no row
    assert set(uses) == {(11, "list"), (16, "list"), (18, "list"), (18, "Serve"), (18, "table")}


def test_a_go_name_assigned_or_returned_is_a_reference() -> None:
    """`var h = list`, `f := pkg.Serve`, `s.cb = list`, `return list`: a
    function only ever assigned is not unused."""
    files: dict[str, str | bytes] = {
        "go.mod": "module example.com/m\n\ngo 1.21\n",
        "pkg/pkg.go": "package pkg\n\nfunc Serve() {}\n",
        "main.go": (
            "package main\n\n"
            'import "example.com/m/pkg"\n\n'  # 3
            "type S struct{ cb func() }\n\n"  # 5
            "var h, g = list, pkg.Serve\n\n"  # 7
            "func list() {}\n\n"  # 9
            "func pick(s *S, err error) func() {\n"  # 11
            "\tf := pkg.Serve\n"
            "\ts.cb = list\n"
            "\tf, x := list, err\n"
            "\t_ = x\n"
            "\treturn list\n"  # 16
            "}\n\n"
            "func other(list func()) func() { k := list; return k }\n"  # 19
        ),
    }
    got = linked_calls(files, "go", kinds=("use",))
    uses = {(line, name): how for (path, line, name, _col), how in got.items() if path == "main.go"}
    here, there = ("bound", "main.go::list"), ("bound", "pkg/pkg.go::Serve")
    assert uses[(7, "list")] == here and uses[(7, "Serve")] == there
    assert uses[(12, "Serve")] == there and uses[(13, "list")] == here
    assert uses[(14, "list")] == here and uses[(16, "list")] == here
    # a local read (`err`, `x`, the parameter `list`, `k`) and `_` name none
    assert set(uses) == {
        (7, "list"),
        (7, "Serve"),
        (12, "Serve"),
        (13, "list"),
        (14, "list"),
        (16, "list"),
    }


def test_a_go_method_value_on_a_typed_receiver_is_a_reference() -> None:
    """`mux.HandleFunc("/", s.handleIndex)`: the method's references include
    it, and `refs` of a handler no longer reads as unused."""
    files: dict[str, str | bytes] = {
        "go.mod": "module example.com/m\n\ngo 1.21\n",
        "handlers.go": "package main\n\nfunc (s *Server) handleIndex() {}\n",
        "main.go": (
            "package main\n\n"
            "type Server struct{ name string }\n\n"  # 3
            "func use(xs ...any) {}\n\n"
            "func (s *Server) routes(w *Server, v any) {\n"  # 7
            "\tuse(s.handleIndex, w.name)\n"
            "\th := s.handleIndex\n"
            "\tuse(h, v.name)\n"  # 10: v's type is unknown
            "}\n"
        ),
    }
    got = linked_calls(files, "go", kinds=("use",))
    uses = {(line, name): how for (path, line, name, _col), how in got.items() if path == "main.go"}
    method = ("bound", "handlers.go::Server.handleIndex")
    assert uses[(8, "handleIndex")] == method and uses[(9, "handleIndex")] == method
    assert uses[(8, "name")] == ("bound", "main.go::Server.name")
    assert (10, "name") not in uses


def test_a_java_method_reference_on_this_is_a_reference() -> None:
    files: dict[str, str | bytes] = {
        "A.java": "class A {\n  void handle(Object o) {}\n"
        "  void f(java.util.List<Object> xs) {\n    xs.forEach(this::handle);\n  }\n}\n",
    }
    got = linked_calls(files, "java", kinds=("use",))
    assert got == {("A.java", 4, "handle", 21): ("bound", "A.java::A.handle")}


def test_a_java_method_reference_on_a_class_or_a_value_is_the_receiver_class_method() -> None:
    files: dict[str, str | bytes] = {
        "src/com/ex/Repo.java": (
            "package com.ex;\npublic class Repo {\n"
            "  public static Repo parse(String s) { return null; }\n"
            "  public void save(Object o) {}\n}\n"
        ),
        "src/com/ex/Svc.java": (
            "package com.ex;\nimport java.util.List;\n"
            "class Svc {\n"
            "  void f(List<String> xs, Repo repo) {\n"
            "    xs.stream().map(Repo::parse).forEach(repo::save);\n"  # 5
            "    xs.stream().map(String::valueOf).map(Repo::new);\n"  # 6
            "    xs.forEach(Svc::h);\n"  # 7
            "  }\n  static void h(String s) {}\n}\n"
        ),
    }
    got = linked_calls(files, "java", kinds=("use",))
    repo, svc = "src/com/ex/Repo.java", "src/com/ex/Svc.java"
    assert got == {
        (svc, 5, "parse", 26): ("bound", f"{repo}::Repo.parse"),
        (svc, 5, "save", 47): ("bound", f"{repo}::Repo.save"),  # the parameter's class
        (svc, 6, "Repo", 41): ("bound", f"{repo}::Repo"),  # a constructor: the class
        (svc, 7, "h", 20): ("bound", f"{svc}::Svc.h"),
    }  # String::valueOf is the JDK's: no row


def test_a_ruby_method_a_callback_symbol_names_is_a_reference() -> None:
    app = "app/controllers/application_controller.rb"
    files: dict[str, str | bytes] = {
        app: (
            "class ApplicationController < ActionController::Base\n"
            "  before_action :authenticate_user, if: :signed_in?\n\n"
            "  def authenticate_user\n  end\n\n  def signed_in?\n    true\n  end\nend\n"
        ),
        "app/models/article.rb": (
            "class Article\n  validate :title_present\n\n"
            "  def publish\n    handlers = [method(:title_present)]\n"  # 5
            "    send(:title_present)\n"
            "    other.send(:title_present)\n"  # 7: another object's: no row
            "    render json: { a: :publish }\n"  # 8: a symbol as data: no row
            "  end\n\n  def title_present\n  end\nend\n"
        ),
    }
    got = linked_calls(files, "ruby", kinds=("use",))
    check = ("bound", "app/models/article.rb::Article.title_present")
    assert got == {
        (app, 2, "authenticate_user", 16): (
            "bound",
            f"{app}::ApplicationController.authenticate_user",
        ),
        (app, 2, "signed_in?", 40): ("bound", f"{app}::ApplicationController.signed_in?"),
        ("app/models/article.rb", 2, "title_present", 11): check,
        ("app/models/article.rb", 5, "title_present", 23): check,
        ("app/models/article.rb", 6, "title_present", 9): check,
    }


def test_a_php_callable_array_names_the_method_of_its_class() -> None:
    ctl = "app/Http/Controllers/UserController.php"
    files: dict[str, str | bytes] = {
        "composer.json": '{"autoload": {"psr-4": {"App\\\\": "app/"}}}',
        ctl: (
            "<?php\nnamespace App\\Http\\Controllers;\n\nclass UserController\n{\n"
            "    public function index() { return 1; }\n"
            "    public function format($x) { return $x; }\n"
            "    public function all($ys) { return array_map([$this, 'format'], $ys); }\n"  # 8
            "    public static function cmp($a, $b) { return 0; }\n"
            "    public function sorted($a) { usort($a, [self::class, 'cmp']); }\n"  # 10
            "}\n"
        ),
        "routes/web.php": (
            "<?php\nuse App\\Http\\Controllers\\UserController as Users;\n\n"
            "Route::get('/', [Users::class, 'index']);\n"  # 4: through the alias
            "$pair = ['a', 'index'];\n"  # 5: two strings are data
        ),
    }
    got = linked_calls(files, "php", kinds=("use",))
    cls = f"{ctl}::App.Http.Controllers.UserController"
    assert got == {
        (ctl, 8, "format", 57): ("bound", f"{cls}.format"),
        (ctl, 10, "cmp", 58): ("bound", f"{cls}.cmp"),
        ("routes/web.php", 4, "index", 32): ("bound", f"{cls}.index"),
    }


def test_a_php_function_is_found_by_its_namespaced_name_anywhere() -> None:
    """PHP's functions are the program's, not a file's: `helper()` in
    namespace App is App\\helper if some file defines it, else the global
    helper; a string where a callback is expected names one too."""
    files: dict[str, str | bytes] = {
        "src/helpers.php": "<?php\nnamespace App;\n\nfunction helper() {}\n",
        "src/global.php": "<?php\nfunction my_init() {}\nfunction cmp($a, $b) { return 0; }\n",
        "src/Repo.php": (
            "<?php\nnamespace App\\Store;\n\nuse function App\\helper;\n\n"  # 4
            "helper();\n"  # 6: through `use function`
            "\\App\\helper();\n"  # 7: fully qualified
            "my_init();\n"  # 8: no App\\Store\\my_init: the global one
            "strlen('x');\n"  # 9: PHP's own
            "usort($xs, 'cmp');\n"  # 10
            "add_action('init', 'my_init');\n"  # 11: 'init' is a hook's name
            "__('cmp');\n"  # 12: a string no callback is expected in
            "add_filter('x', 'cmp');\n"  # 13: WordPress's, mocked by the tests
        ),
        "tests/mock.php": "<?php\nfunction add_filter($h, $f) {}\n",
        "tests/RepoTest.php": "<?php\nadd_filter('x', 'cmp');\n",
    }
    got = linked_calls(files, "php", kinds=("call", "use", "import"))
    repo = {
        (line, name): how for (path, line, name, _c), how in got.items() if path == "src/Repo.php"
    }
    helper = ("bound", "src/helpers.php::App.helper")
    assert repo[(4, "helper")] == helper
    assert repo[(6, "helper")] == helper and repo[(7, "helper")] == helper
    assert repo[(8, "my_init")] == ("bound", "src/global.php::my_init")
    assert repo[(9, "strlen")] == ("external", None)
    assert repo[(10, "cmp")] == ("bound", "src/global.php::cmp")
    assert repo[(11, "my_init")] == ("bound", "src/global.php::my_init")
    assert (11, "init") not in repo and (12, "cmp") not in repo
    # outside the tests, a function only the tests define is not the one that runs
    assert repo[(13, "add_filter")] == ("candidate", None)
    assert got[("tests/RepoTest.php", 2, "add_filter", 0)] == (
        "bound",
        "tests/mock.php::add_filter",
    )


def test_a_csharp_method_group_of_the_class_is_a_reference() -> None:
    files: dict[str, str | bytes] = {
        "A.cs": (
            "namespace App {\nclass A {\n  int count;\n"
            "  void F(List<string> xs, int count) {\n"  # 4
            "    var ys = xs.Select(Parse);\n"
            "    button.Click += OnClick;\n"  # 6: an event handler
            "    Func<string, int> f = Parse;\n"
            "    G(this.Parse);\n"  # 8
            "    G(count, xs);\n"  # 9: a parameter, and a field of its name: no method
            "  }\n"
            "  int Parse(string s) => 0;\n  void OnClick(object o, EventArgs e) {}\n}\n}\n"
        ),
    }
    # a form's designer file wires a handler its other part defines
    files["A.Designer.cs"] = (
        "namespace App {\npartial class A {\n  void Init() {\n"
        "    this.button.Click += new System.EventHandler(this.OnClick);\n"  # 4
        "  }\n}\n}\n"
    )
    files["A.cs"] = str(files["A.cs"]).replace("class A {", "partial class A {")
    got = linked_calls(files, "csharp", kinds=("use",))
    parse, handler = ("bound", "A.cs::App.A.Parse"), ("bound", "A.cs::App.A.OnClick")
    assert got == {
        ("A.cs", 5, "Parse", 23): parse,
        ("A.cs", 6, "OnClick", 20): handler,
        ("A.cs", 7, "Parse", 26): parse,
        ("A.cs", 8, "Parse", 11): parse,
        ("A.Designer.cs", 4, "OnClick", 54): handler,
    }


def test_a_rust_function_passed_as_a_value_is_a_reference_unless_a_local_hides_it() -> None:
    files: dict[str, str | bytes] = {
        "Cargo.toml": '[package]\nname = "app"\n',
        "src/lib.rs": (
            "pub mod error;\nuse crate::error::Error;\n\n"
            "fn parse(s: &str) -> u32 { 0 }\n\n"
            "pub fn run(xs: Vec<String>) {\n"  # 6
            "    let a = xs.iter().map(parse).map_err(Error::io).map(Kind::Big);\n"
            "    let s = S { cb: parse, other: Error::new };\n"  # 8
            '    let parse = parse("1");\n'  # 9: the call is the function's
            "    take(parse);\n"  # 10: the local now
            "}\n\n"
            "fn local(parse: u32) { take(parse); }\n"  # 13: a parameter
            "struct S { cb: fn(&str) -> u32 }\n"
            "impl S {\n    fn twice(&self) -> u32 { self.apply(Self::one) }\n"  # 16
            "    fn one() -> u32 { 1 }\n}\n"
        ),
        "src/error.rs": (
            "pub struct Error;\nimpl Error {\n"
            "    pub fn io(e: std::io::Error) -> Error { Error }\n"
            "    pub fn new() -> Error { Error }\n}\n"
        ),
    }
    got = linked_calls(files, "rust", kinds=("use", "call"))
    lib = {(line, name): how for (path, line, name, _c), how in got.items() if path == "src/lib.rs"}
    here = ("bound", "src/lib.rs::parse")
    assert lib[(7, "parse")] == lib[(8, "parse")] == lib[(9, "parse")] == here
    assert lib[(7, "io")] == ("bound", "src/error.rs::Error.io")
    assert lib[(8, "new")] == ("bound", "src/error.rs::Error.new")
    assert lib[(16, "one")] == ("bound", "src/lib.rs::S.one")
    # an enum's variant is no definition; a local or parameter hides the function
    assert (7, "Big") not in lib and (10, "parse") not in lib and (13, "parse") not in lib


def test_a_function_serde_names_in_a_string_is_a_reference() -> None:
    """`#[serde(default = "default_port")]`: serde calls it for a missing field."""
    files: dict[str, str | bytes] = {
        "Cargo.toml": '[package]\nname = "app"\n',
        "src/util.rs": "pub fn from_hex(d: D) -> u8 { 0 }\n",
        "src/lib.rs": (
            "pub mod util;\nuse crate::util::from_hex;\n\n"
            "struct Config {\n"  # 4
            '    #[serde(default = "default_port", skip_serializing_if = "Option::is_none")]\n'
            '    #[serde(deserialize_with = "from_hex", rename = "default_port")]\n'  # 6
            '    #[doc = "default_port"]\n'  # 7: no function
            "    port: u16,\n}\n\n"
            "fn default_port() -> u16 { 8080 }\n"
        ),
    }
    got = linked_calls(files, "rust", kinds=("use",))
    lib = {
        (line, name, col): how
        for (path, line, name, col), how in got.items()
        if path == "src/lib.rs"
    }
    assert lib == {
        (5, "default_port", 23): ("bound", "src/lib.rs::default_port"),
        (6, "from_hex", 32): ("bound", "src/util.rs::from_hex"),
    }


def test_a_use_in_a_nested_rust_module_does_not_hide_the_files_own_function() -> None:
    """ripgrep's interpolate.rs: `find_cap_ref(..)` at the top of the file,
    `use super::{find_cap_ref}` in its `mod tests`."""
    files: dict[str, str | bytes] = {
        "Cargo.toml": '[package]\nname = "app"\n',
        "src/lib.rs": (
            "pub fn run(r: &[u8]) { find_cap_ref(r); }\n"
            "fn find_cap_ref(r: &[u8]) -> Option<u8> { None }\n"
            "#[cfg(test)]\nmod tests {\n"
            "    use super::{find_cap_ref};\n"  # 5
            '    fn t() { find_cap_ref(b"x"); }\n'
            "}\n"
        ),
    }
    got = linked_calls(files, "rust")
    here = ("bound", "src/lib.rs::find_cap_ref")
    assert got[("src/lib.rs", 1, "find_cap_ref", 23)] == here
    assert got[("src/lib.rs", 6, "find_cap_ref", 13)] == here


def test_a_rust_use_with_nested_groups_imports_each_leaf() -> None:
    """ripgrep's flags module: `pub(crate) use crate::flags::{doc::{help::{
    generate_long as generate_help_long}}, ...}`, then `flags::generate_help_long()`;
    a standard library leaf is external."""
    files: dict[str, str | bytes] = {
        "Cargo.toml": '[package]\nname = "app"\n',
        "src/main.rs": "mod flags;\nfn main() { flags::generate_help_long(); flags::run(); }\n",
        "src/flags/mod.rs": (
            "mod doc;\nmod parse;\n"
            "pub(crate) use crate::flags::{\n"
            "    doc::{help::{generate_long as generate_help_long}},\n"  # 4
            "    parse::run,\n"
            "};\n"
            "use std::{io::{self, Write}, fs::read};\n"  # 7
        ),
        "src/flags/doc/mod.rs": "pub(crate) mod help;\n",
        "src/flags/doc/help.rs": "pub fn generate_long() {}\n",
        "src/flags/parse.rs": "pub fn run() {}\n",
    }
    got = linked_calls(files, "rust", kinds=("call", "import"))
    assert got[("src/main.rs", 2, "generate_help_long", 19)] == (
        "bound",
        "src/flags/doc/help.rs::generate_long",
    )
    assert got[("src/main.rs", 2, "run", 48)] == ("bound", "src/flags/parse.rs::run")
    imports = {(line, name): how for (path, line, name, _c), how in got.items() if line == 7}
    assert imports[(7, "Write")][0] == imports[(7, "read")][0] == "external"


def test_a_rust_module_and_a_function_of_one_name_are_apart() -> None:
    """ripgrep: `mod search;` beside `fn search` in main.rs, `mod parse;`
    beside `pub use parse::parse` in flags, `use crate::escape::{escape}`:
    a call names the function, never the module (Rust keeps them apart)."""
    files: dict[str, str | bytes] = {
        "Cargo.toml": '[package]\nname = "app"\n',
        "src/main.rs": (
            "mod flags;\nmod search;\nfn search() {}\n"
            "fn main() { flags::parse(); search(); }\n"  # 4
        ),
        "src/flags/mod.rs": (
            "mod parse;\nmod escape;\npub use parse::parse;\n"
            "use crate::flags::escape::{escape};\n"
            "fn f() { escape(); crate::search(); }\n"  # 5
        ),
        "src/flags/parse.rs": "pub fn parse() {}\n",
        "src/flags/escape.rs": "pub fn escape() {}\n",
        "src/search.rs": "pub fn other() {}\n",
    }
    got = linked_calls(files, "rust")
    at = {(path, line, name): how for (path, line, name, _c), how in got.items()}
    assert at[("src/main.rs", 4, "parse")] == ("bound", "src/flags/parse.rs::parse")
    assert at[("src/main.rs", 4, "search")] == ("bound", "src/main.rs::search")
    assert at[("src/flags/mod.rs", 5, "escape")] == ("bound", "src/flags/escape.rs::escape")
    assert at[("src/flags/mod.rs", 5, "search")] == ("bound", "src/main.rs::search")
    linker = table_linker(*rows_of(files, "rust"))
    found = linker.find("src/main.rs", "search")
    assert found is not None and found["kind"] == "function"


def test_a_rust_call_written_with_a_module_path_binds_to_the_module_file() -> None:
    files: dict[str, str | bytes] = {
        "Cargo.toml": '[package]\nname = "app"\n',
        "src/lib.rs": (
            "pub mod util;\npub mod net;\nuse std::fs;\n\n"
            "pub fn run(xs: Vec<String>) {\n"  # 5
            '    util::parse("1");\n'  # 6: a module lib.rs declares
            "    let a = xs.iter().map(util::parse);\n"  # 7: passed as a value
            "    crate::net::tcp::connect();\n"  # 8
            '    fs::read("x");\n'  # 9: std's, through the import
            '    std::env::var("X");\n'  # 10
            "}\n\nfn helper() {}\n\n"
            "#[cfg(test)]\nmod tests {\n    fn t() { super::helper(); }\n}\n"  # 17
        ),
        "src/util.rs": "pub fn parse(s: &str) -> u32 { 0 }\n",
        "src/net/mod.rs": "pub mod tcp;\npub fn reset() {}\n",
        "src/net/tcp.rs": (
            "pub fn connect() { super::reset(); self::close(); }\n"  # 1: super is net
            "fn close() {}\n"
        ),
    }
    got = linked_calls(files, "rust", kinds=("use", "call"))
    at = {(path, line, name): how for (path, line, name, _c), how in got.items()}
    parse = ("bound", "src/util.rs::parse")
    assert at[("src/lib.rs", 6, "parse")] == at[("src/lib.rs", 7, "parse")] == parse
    assert at[("src/lib.rs", 8, "connect")] == ("bound", "src/net/tcp.rs::connect")
    assert at[("src/lib.rs", 9, "read")][0] == at[("src/lib.rs", 10, "var")][0] == "external"
    assert at[("src/lib.rs", 17, "helper")] == ("bound", "src/lib.rs::helper")
    assert at[("src/net/tcp.rs", 1, "reset")] == ("bound", "src/net/mod.rs::reset")
    assert at[("src/net/tcp.rs", 1, "close")] == ("bound", "src/net/tcp.rs::close")


def test_a_kotlin_callable_reference_is_a_reference() -> None:
    files: dict[str, str | bytes] = {
        "A.kt": "class A {\n  fun handle(o: Any) {}\n"
        "  fun f(xs: List<Any>) {\n    xs.forEach(::handle)\n  }\n}\n"
        "fun top(o: Any) {}\nfun g(xs: List<Any>) { xs.forEach(::top) }\n",
    }
    got = linked_calls(files, "kotlin", kinds=("use",))
    assert got == {
        ("A.kt", 4, "handle", 17): ("bound", "A.kt::A.handle"),
        ("A.kt", 8, "top", 36): ("bound", "A.kt::top"),
    }


def test_a_kotlin_reference_on_a_class_or_a_value_is_the_receiver_class_function() -> None:
    files: dict[str, str | bytes] = {
        "src/main/kotlin/com/ex/Repo.kt": (
            "package com.ex\n\nclass Repo {\n    fun save(o: Any) {}\n"
            "    companion object {\n        fun parse(s: String): Repo = Repo()\n    }\n}\n"
        ),
        "src/main/kotlin/com/ex/Svc.kt": (
            "package com.ex\n\nclass Svc {\n"
            "    fun f(xs: List<String>, repo: Repo) {\n"
            "        xs.map(Repo::parse).forEach(repo::save)\n"  # 5
            "        run(repo::save)\n"  # 6: an argument of a bare call too
            "        xs.map(String::length)\n"  # 7: kotlin's own String: external
            "        val k = Repo::class\n"  # 8: a class literal, no row
            "    }\n}\n"
        ),
    }
    got = linked_calls(files, "kotlin", kinds=("use",))
    repo, svc = "src/main/kotlin/com/ex/Repo.kt", "src/main/kotlin/com/ex/Svc.kt"
    assert got == {
        (svc, 5, "parse", 21): ("bound", f"{repo}::Repo.parse"),
        (svc, 5, "save", 42): ("bound", f"{repo}::Repo.save"),
        (svc, 6, "save", 18): ("bound", f"{repo}::Repo.save"),
        (svc, 7, "length", 23): ("external", None),
    }


def test_imports_through_a_linked_folder_resolve_to_the_real_file() -> None:
    """`freshindex/indexer -> ../indexer` (this repository's own layout):
    `from freshindex.indexer.shard import f` names indexer/shard.py."""
    paths = [
        "indexer/__init__.py",
        "indexer/shard.py",
        "freshindex/__init__.py",
        "freshindex/indexer",
    ]
    index = PathIndex(paths, {"freshindex/indexer": "../indexer", "loop": ".", "out": "../../x"})
    assert index("python", "tasks/parse.py", "freshindex.indexer.shard", "f") == "indexer/shard.py"
    assert index("python", "tasks/parse.py", "freshindex.indexer", "shard") == "indexer/shard.py"
    assert index.at("freshindex/indexer/shard.py") == "indexer/shard.py"
    assert index.at("loop/indexer/shard.py") is None  # a link to the root is not followed
    assert index.digest != PathIndex(paths).digest


def test_java_classes_of_the_same_package_bind_without_an_import() -> None:
    files: dict[str, str | bytes] = {
        "src/com/ex/Base.java": "package com.ex;\npublic class Base {}\n",
        "src/com/ex/User.java": "package com.ex;\npublic class User {}\n",
        "src/com/ex/Service.java": (
            "package com.ex;\n"
            "public class Service extends Base {\n"
            "    User make() { return new User(); }\n"
            "    Object other() { return new Missing(); }\n"
            "}\n"
        ),
    }
    symbols, edges = rows_of(files, "java")
    linker = table_linker(symbols, edges)
    path = "src/com/ex/Service.java"

    def named(line: int, target: str) -> tuple[str, str | None]:
        e = edge(edges, path, line, target)
        link = linker.link(e["binding"], e["via"], e["resolved_path"], e["target_qualname"])
        return link.binding, link.symbol["path"] if link.symbol else None

    assert named(2, "Base") == ("bound", "src/com/ex/Base.java")
    assert named(3, "User") == ("bound", "src/com/ex/User.java")
    assert named(4, "Missing") == ("candidate", None)


GO_FILES: dict[str, str | bytes] = {
    "go.mod": "module example.com/app\n",
    "store/store.go": (
        'package store\n\nimport "fmt"\n\ntype Store struct{ Base }\n\n'
        "func Open(p string) *Store {\n\tfmt.Println(p)\n\treturn &Store{}\n}\n\n"
        "func (s *Store) Close() {\n\thelper()\n}\n\n"
        "type Base struct{}\n\nfunc (b Base) Ping() {}\n\n"  # 16-18
        "func (s *Store) Sync() func() {\n"  # 20
        "\ts.Close()\n\ts.flush()\n\ts.Ping()\n\ts.missing()\n"  # 21-24
        "\treturn func() { s.Close() }\n}\n\n"  # 25
        "func (s *Store) Shadow() {\n\tif true {\n\t\ts := other()\n\t\ts.Close()\n\t}\n}\n"  # 28-33
    ),
    "store/util.go": (
        'package store\n\nfunc helper() int {\n\treturn len("x")\n}\n\n'
        "func max(a, b int) int { return a }\n\nfunc (s *Store) flush() {}\n"
    ),
    "store/store_test.go": 'package store\n\nfunc TestOpen() {\n\tOpen("x")\n\tmax(1, 2)\n}\n',
    "cmd/main.go": (
        'package main\n\nimport (\n\t"example.com/app/store"\n\tdb "example.com/app/store"\n)\n\n'
        'func main() {\n\ts := store.Open("a")\n\ts.Close()\n\t_ = db.Store{}\n'
        "\thelper := func() {}\n\thelper()\n\tmissing()\n}\n\n"
        'func other(store int) {\n\t_ = store\n}\n\nfunc third() {\n\tstore.Open("b")\n}\n'
    ),
}


def test_go_new_of_a_type_is_a_pointer_to_it() -> None:
    # echo's tests: `var c = new(Context); c.Request()`; new(bytes.Buffer) is outside
    files: dict[str, str | bytes] = {
        "context.go": "package echo\ntype Context struct{}\n"
        "func (c *Context) Request() int { return 1 }\n",
        "context_test.go": 'package echo\nimport "bytes"\n'
        "func TestRequest() { var c = new(Context); c.Request(); b := new(bytes.Buffer); b.Len() }\n",
    }
    got = {
        k[2]: v
        for k, v in linked_calls(files, "go", ("call",)).items()
        if k[0] == "context_test.go"
    }
    assert got["Request"] == ("bound", "context.go::Context.Request")
    assert got["Len"] == ("external", None)


def test_go_names_bind_across_the_files_of_their_package() -> None:
    """A Go package is a folder: `store.Open` and a bare `helper()` name a
    definition in any file of it; locals, receivers' members and other
    packages stay what they are."""
    found = linked(GO_FILES, "go")
    assert found[("cmd/main.go", 9, "Open")] == ("bound", "store/store.go::Open")
    assert found[("cmd/main.go", 11, "Store")] == ("bound", "store/store.go::Store")  # an alias
    assert found[("cmd/main.go", 22, "Open")] == ("bound", "store/store.go::Open")
    assert found[("store/store.go", 13, "helper")] == ("bound", "store/util.go::helper")
    assert found[("store/store_test.go", 4, "Open")] == ("bound", "store/store.go::Open")
    # a predeclared name the package declares itself is the package's
    assert found[("store/store_test.go", 5, "max")] == ("bound", "store/util.go::max")
    assert found[("store/util.go", 4, "len")] == ("external", None)
    assert found[("store/store.go", 8, "Println")] == ("external", None)  # not in the repo
    # a variable's member: s holds what store.Open returns, a *Store
    assert found[("cmd/main.go", 10, "Close")] == ("bound", "store/store.go::Store.Close")
    assert found[("cmd/main.go", 13, "helper")] == ("candidate", None)  # a local closure
    assert found[("cmd/main.go", 14, "missing")] == ("candidate", None)  # defined nowhere
    # a method's receiver has a known type: its methods in any file of the
    # package, and those promoted from a struct it embeds
    assert found[("store/store.go", 21, "Close")] == ("bound", "store/store.go::Store.Close")
    assert found[("store/store.go", 22, "flush")] == ("bound", "store/util.go::Store.flush")
    assert found[("store/store.go", 23, "Ping")] == ("bound", "store/store.go::Base.Ping")
    assert found[("store/store.go", 24, "missing")] == ("candidate", None)
    assert found[("store/store.go", 25, "Close")] == ("bound", "store/store.go::Store.Close")
    assert found[("store/store.go", 31, "Close")] == ("candidate", None)  # s redeclared


def test_a_go_local_that_hides_an_import_is_not_the_package() -> None:
    files = dict(GO_FILES)
    files["cmd/main.go"] = (
        'package main\n\nimport "example.com/app/store"\n\n'
        'func main() {\n\tstore := open()\n\tstore.Open("a")\n}\n'
    )
    assert linked(files, "go")[("cmd/main.go", 7, "Open")] == ("candidate", None)


def test_java_calls_on_this_class_bind_to_its_methods_and_its_bases() -> None:
    files: dict[str, str | bytes] = {
        "src/com/ex/Base.java": "package com.ex;\npublic class Base {\n    void audit() {}\n}\n",
        "src/com/ex/Service.java": (
            "package com.ex;\n"
            "public class Service extends Base {\n"
            "    void save() { validate(); this.validate(); audit(); missing(); }\n"  # 3
            "    void validate() {}\n"
            "    Runnable later() {\n"
            "        return new Runnable() { public void run() { validate(); } };\n"  # 6
            "    }\n"
            "    Runnable lambda() { return () -> validate(); }\n"  # 8
            "}\n"
        ),
    }
    found = linked(files, "java")
    path = "src/com/ex/Service.java"
    assert found[(path, 3, "validate")] == ("bound", f"{path}::Service.validate")
    assert found[(path, 3, "audit")] == ("bound", "src/com/ex/Base.java::Base.audit")  # inherited
    assert found[(path, 3, "missing")] == ("candidate", None)
    assert found[(path, 6, "validate")] == ("candidate", None)  # inside an anonymous class
    assert found[(path, 8, "validate")] == ("bound", f"{path}::Service.validate")  # a lambda's this


CONSTRUCTORS = {
    "shapes/base.py": (
        "class Shape:\n"
        "    def __init__(self, name):\n"
        "        self.name = name\n"
        "\n\n"
        "class Square(Shape):\n"
        "    pass\n"
        "\n\n"
        "class Tiny(Square):\n"
        "    pass\n"
        "\n\n"
        "class Circle(Shape):\n"
        "    def __init__(self, r):\n"
        "        super().__init__('circle')\n"
        "        self.r = r\n"
        "\n\n"
        "class ShapeError(Exception):\n"
        "    def __init__(self, why):\n"
        "        super().__init__(why)\n"
        "\n\n"
        "class Plain:\n"
        "    pass\n"
        "\n\n"
        "class Fancy(Plain):\n"
        "    pass\n"
    ),
    "shapes/use.py": (
        "from shapes.base import Circle, Shape, ShapeError, Square, Tiny\n"
        "\n\n"
        "def make():\n"
        "    a = Shape('a')\n"
        "    b = Square('b')\n"
        "    c = Circle(2)\n"
        "    d = Tiny('d')\n"
        "    if not a:\n"
        "        raise ShapeError('none')\n"
        "    return a, b, c, d\n"
        "\n\n"
        "def more():\n"
        "    from shapes.base import Fancy, Plain\n"
        "    return Plain(), Fancy(), Plain, Square('s')\n"
    ),
}


def test_refs_of_a_constructor_list_the_instantiations(
    tmp_path: Path, prefect_api: str, run_cli: Any
) -> None:
    """`refs C.__init__` lists `C(...)` and the instantiations of subclasses
    that do not define their own __init__; `raise E(...)` runs E.__init__."""
    repo = make_repo(tmp_path / "repo", CONSTRUCTORS)
    store = (tmp_path / "store").as_uri()
    code, _out, err = run_cli("--repo", str(repo), "--store", store, "build",
                              "--runner", "threads", "--shards", "2")  # fmt: skip
    assert code == 0, err

    def refs(target: str) -> dict[str, Any]:
        code, out, err = run_cli("--repo", str(repo), "--store", store, "--json", "refs", target)
        assert code == 0, err
        return json.loads(out)  # type: ignore[no-any-return]

    doc = refs("Shape.__init__")
    assert doc["freshness"] == "exact"
    # super().__init__ in Circle, then Shape(), Square() and Tiny() (inherited)
    assert places(doc["bound"]) == [
        ("shapes/base.py", 16),
        ("shapes/use.py", 5),
        ("shapes/use.py", 6),
        ("shapes/use.py", 8),
        ("shapes/use.py", 16),
    ]
    made = [r for r in doc["bound"] if r["path"] == "shapes/use.py"]
    assert all("runs Shape.__init__" in r["via"] for r in made)
    assert ("shapes/use.py", 7) not in places(doc["bound"])  # Circle has its own
    circle = refs("Circle.__init__")
    assert ("shapes/use.py", 7) in places(circle["bound"])
    error = refs("ShapeError.__init__")
    assert places(error["bound"]) == [("shapes/use.py", 10)]
    # no __init__ of its own: what runs is the base's, so the answer is the base's
    square = refs("Square.__init__")
    assert [d["qualname"] for d in square["definitions"]] == ["Shape.__init__"]
    assert ("shapes/use.py", 16) in places(square["bound"])
    # none in the repository at all: the class, and only its instantiations
    plain = refs("Plain.__init__")
    assert [(d["qualname"], d["kind"]) for d in plain["definitions"]] == [("Plain", "class")]
    assert places(plain["bound"]) == [("shapes/use.py", 16), ("shapes/use.py", 16)]
    assert {r["startCol"] for r in plain["bound"]} == {11, 20}  # Plain(), Fancy(); not Plain
    assert plain["candidates"] == [] and plain["complete"] is True
    assert all("implicit __init__" in r["via"] for r in plain["bound"])
    code, out, err = run_cli("--repo", str(repo), "--store", store, "--json", "defs",
                             "Square.__init__")  # fmt: skip
    assert code == 0, err
    assert [r["qualname"] for r in json.loads(out)["results"]] == ["Shape.__init__"]
    code, out, err = run_cli("--repo", str(repo), "--store", store, "--json", "defs",
                             "Plain.__init__")  # fmt: skip
    assert code == 0, err
    assert [r["kind"] for r in json.loads(out)["results"]] == ["class"]
    # every __init__ at once: their classes' references are read in one pass
    # (query/view.py prefetch_refs), and each group is what its own query gave
    every = {g["definition"]["qualname"]: g for g in refs("__init__")["groups"]}
    assert places(every["Shape.__init__"]["bound"]) == places(doc["bound"])
    assert places(every["Circle.__init__"]["bound"]) == places(circle["bound"])
    assert places(every["ShapeError.__init__"]["bound"]) == places(error["bound"])


def test_an_unknown_target_is_an_error_with_the_nearest_names(
    tmp_path: Path, prefect_api: str, run_cli: Any
) -> None:
    repo = make_repo(tmp_path / "repo", CONSTRUCTORS)
    store = (tmp_path / "store").as_uri()
    code, _out, err = run_cli("--repo", str(repo), "--store", store, "build",
                              "--runner", "threads", "--shards", "2")  # fmt: skip
    assert code == 0, err
    for argv, near in ((["refs", "Shape.nonexistent"], "Shape"), (["defs", "Sqare"], "Square")):
        code, out, err = run_cli("--repo", str(repo), "--store", store, *argv)
        assert code == 2 and out == ""
        assert err.startswith("freshindex: error: no definition named") and near in err, err
        assert len(err.strip().splitlines()) == 1


def test_a_place_bound_through_one_value_is_no_candidate_through_another(
    built: tuple[Path, str, Any],
) -> None:
    """`timeout: Timeout | Default` then `timeout.as_dict()`: Timeout's is
    bound; Default has none, and that value is not listed again as a name
    match at the same place. Each place is listed once: `v` given a Timeout
    two ways (a row each), and `t: Default | Spare`, neither of which has
    the method (a name match, not two)."""
    _repo, _store, q = built
    doc = q("Timeout.as_dict")
    assert [(r["path"], r["startLine"]) for r in doc["bound"]] == [
        ("app/timeouts.py", 11),
        ("app/timeouts.py", 28),
    ]
    assert [(r["path"], r["startLine"]) for r in doc["candidates"]] == [("app/timeouts.py", 19)]


def test_an_empty_bound_list_with_unfollowed_calls_is_not_complete(
    built: tuple[Path, str, Any],
) -> None:
    """`j.run_job()` on an untyped parameter: the binder cannot follow it, so
    "no bound reference" is not "no callers"."""
    _repo, _store, q = built
    doc = q("Job.run_job")
    assert doc["bound"] == []
    assert (doc["boundCount"], doc["candidateCount"], doc["unfollowedCalls"]) == (0, 1, 1)
    assert doc["complete"] is False
    assert doc["freshness"] == "exact"
    bound = q("Other.save")
    assert bound["boundCount"] == 1 and bound["complete"] is True


def test_refs_of_a_field_whose_reads_are_not_indexed_are_not_complete(
    built: tuple[Path, str, Any],
) -> None:
    """TypeScript's binder records calls, not reads: `this.count += 1` is no
    row, so an empty list for the field `Store.count` proves nothing."""
    _repo, _store, q = built
    doc = q("Store.count")
    assert [d["kind"] for d in doc["definitions"]] == ["field"]
    assert doc["freshness"] == "exact" and doc["complete"] is False
    assert "reads of a typescript field are not indexed" in " ".join(doc["reasons"])
    python = q("Model.save")  # Python records reads and calls: the list is whole
    assert python["complete"] is True


def test_no_reference_to_a_function_a_language_may_pass_unrecorded_is_not_complete(
    built: tuple[Path, str, Any],
) -> None:
    """C records a function used as a value only in the file that defines
    or declares it: `drv_exit`, which any file may pass as an argument
    (`atexit(drv_exit)`) after a header declares it, has no bound
    reference, and that is not "unused". A `static` function's file is
    the only one that can name it, so its empty list stands, as does
    TypeScript's, which records a function passed as a value anywhere."""
    _repo, _store, q = built
    doc = q("drv_exit")
    assert doc["bound"] == [] and doc["freshness"] == "exact"
    assert doc["complete"] is False
    assert "a c function as a value" in " ".join(doc["reasons"])
    spare = q("drv_spare")
    assert spare["bound"] == [] and spare["complete"] is True
    passed = q("drv_irq")  # request_irq(7, drv_irq)
    assert places(passed["bound"]) == [("drv/ops.c", 5)] and passed["complete"] is True
    table = q("drv_open")
    assert places(table["bound"]) == [("drv/ops.c", 4)] and table["complete"] is True
    ts = q("Store.bump")
    assert ts["bound"] == [] and ts["complete"] is True


C_FILES: dict[str, str | bytes] = {
    "include/linux/slab.h": "#include <linux/gfp.h>\n"
    "static inline void *kmalloc(int size, int flags) { return __kmalloc(size, flags); }\n"
    "void *__kmalloc(int size, int flags);\n"
    "#define kmalloc_track(s, f) kmalloc(s, f)\n",
    "include/linux/gfp.h": "#define GFP_KERNEL 1\n",
    "mm/slub.c": "#include <linux/slab.h>\n"
    "void *__kmalloc(int size, int flags) { return 0; }\n"
    "static int helper(void) { return 1; }\n"
    'int use(void) { helper(); printf("x"); return kmalloc(1, GFP_KERNEL) != 0; }\n',
    "drivers/a.c": '#include "a.h"\nint f(void) { kmalloc_track(1, 2); return (int)kmalloc(2, 3); }\n',
    "drivers/a.h": "#include <linux/slab.h>\n",
    "arch/x86/include/asm/io.h": "static inline int inb(int p) { return p; }\n",
    "arch/arm/include/asm/io.h": "static inline int inb(int p) { return p + 1; }\n",
    "arch/x86/kernel/b.c": "#include <asm/io.h>\nint g(void) { return inb(1); }\n",
    "lib/twice1.c": "int twice(int x) { return 2 * x; }\n",
    "lib/twice2.c": "int twice(int x) { return x + x; }\n",
    "lib/use.c": "int h(void) { return twice(1); }\n",
}


def c_rows(files: dict[str, str | bytes]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    paths = PathIndex(files)
    symbols: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    for path, text in files.items():
        rows = extract(path, "c" if path.endswith(".c") else "cpp", str(text).encode(), paths)
        symbols += [dict(zip(SYMBOLS.names, r, strict=True)) for r in rows.symbols]
        edges += [dict(zip(EDGES.names, r, strict=True)) for r in rows.edges]
    return symbols, edges


def c_linked(
    files: dict[str, str | bytes] = C_FILES,
) -> dict[tuple[str, int, str], tuple[str, str | None]]:
    """(path, line, target) -> (binding, the file of the definition; a group
    of definitions as their files joined by ``+``)."""
    symbols, edges = c_rows(files)
    linker = table_linker(symbols, edges)
    out = {}
    for e in edges:
        link = linker.link(e["binding"], e["via"], e["resolved_path"], e["target_qualname"])
        where = link.symbol["path"] if link.symbol else link.path
        if link.others:
            where = "+".join([str(where), *(o["path"] for o in link.others)])
        out[(e["path"], e["start_line"], e["target"])] = (link.binding, where)
    return out


def test_c_calls_bind_through_the_include_graph() -> None:
    got = c_linked()
    # angle includes resolve against include roots; the nearest root wins
    assert got[("mm/slub.c", 1, "slab.h>")] == ("bound", "include/linux/slab.h")
    assert got[("arch/x86/kernel/b.c", 1, "io.h>")] == ("bound", "arch/x86/include/asm/io.h")
    # a static inline function in a header, seen through a quoted then an angle include
    assert got[("mm/slub.c", 4, "kmalloc")] == ("bound", "include/linux/slab.h")
    assert got[("drivers/a.c", 2, "kmalloc")] == ("bound", "include/linux/slab.h")
    # a function-like macro is a definition
    assert got[("drivers/a.c", 2, "kmalloc_track")] == ("bound", "include/linux/slab.h")
    # declared in a header, defined once with external linkage: the linker's binding
    assert got[("include/linux/slab.h", 2, "__kmalloc")] == ("bound", "mm/slub.c")
    # static in its own file; nothing in the repository; two definitions
    assert got[("mm/slub.c", 4, "helper")] == ("bound", "mm/slub.c")
    assert got[("mm/slub.c", 4, "printf")] == ("candidate", None)
    assert got[("lib/use.c", 1, "twice")] == ("candidate", None)
    assert got[("arch/x86/kernel/b.c", 2, "inb")] == ("bound", "arch/x86/include/asm/io.h")


PROTOTYPE_FILES: dict[str, str | bytes] = {
    # headers are parsed as C++, which reads `__init f` as a scope `__init::f`
    "include/linux/slab.h": "void kfree(const void *p);\n"
    "static int local(void);\n"
    "void __init slab_setup(void) { kfree(0); }\n"
    "#define FREE_BOTH(a, b) do { kfree(a); kfree(b); } while (0)\n"
    "#define APPLY(fn, x) fn(x)\n",
    "mm/slab_common.c": "#include <linux/slab.h>\nvoid kfree(const void *p) { }\n",
    "mm/slob.c": "#include <linux/slab.h>\nvoid kfree(const void *p) { }\n",
    "drivers/a.c": "#include <linux/slab.h>\n"
    "int f(void **v) {\n"
    "\tfor_each_node(n)\n"
    "\t\tkfree(v[n]);\n"
    "\tFREE_BOTH(v[0], v[1]);\n"
    "\tslab_setup();\n"
    "\treturn 0;\n"
    "}\n",
    "drivers/b.c": "int g(void) { kfree(0); return 0; }\n",
    # a .c file compiled only as part of another sees what its includer included
    "kernel/sched/build.c": '#include <linux/slab.h>\n#include "topology.c"\n',
    "kernel/sched/topology.c": "void t(void) { kfree(0); }\n",
}


def test_a_prototype_binds_to_the_definitions_it_declares() -> None:
    symbols, edges = c_rows(PROTOTYPE_FILES)
    declared = {(e["path"], e["target"]) for e in edges if e["kind"] == "declare"}
    # a prototype is a fact of its header; a static one declares nothing for includers
    assert declared == {("include/linux/slab.h", "kfree")}
    # a C macro before the name is not a C++ scope
    setup = next(s for s in symbols if s["name"] == "slab_setup")
    assert (setup["kind"], setup["qualname"]) == ("function", "slab_setup")
    got = c_linked(PROTOTYPE_FILES)
    group = ("bound", "mm/slab_common.c+mm/slob.c")
    # the call sees the prototype: bound to every definition of its group
    assert got[("drivers/a.c", 4, "kfree")] == group  # after a loop macro
    assert got[("include/linux/slab.h", 3, "kfree")] == group
    assert got[("drivers/a.c", 6, "slab_setup")] == ("bound", "include/linux/slab.h")
    # calls in a macro's body are the macro's; its parameters are not calls
    assert got[("include/linux/slab.h", 4, "kfree")] == group
    assert ("include/linux/slab.h", 5, "fn") not in got
    macro_calls = [e for e in edges if e["source"] == "FREE_BOTH"]
    assert [(e["start_col"], e["end_col"]) for e in macro_calls] == [(29, 34), (39, 44)]
    assert got[("kernel/sched/topology.c", 1, "kfree")] == group
    # no prototype in sight and two definitions: not provable
    assert got[("drivers/b.c", 1, "kfree")] == ("candidate", None)


def test_a_prototype_with_no_definition_in_the_sources_is_external() -> None:
    # glibc's memcpy: declared in string.h, written in assembly
    files: dict[str, str | bytes] = {
        "include/string.h": "extern void *memcpy (void *d, const void *s, unsigned long n);\n",
        "lib/copy.c": "#include <string.h>\nvoid f(char *a, char *b) { memcpy (a, b, 1); }\n",
        "lib/other.c": "void g(char *a, char *b) { memcpy (a, b, 1); }\n",
    }
    got = c_linked(files)
    assert got[("lib/copy.c", 2, "memcpy")] == ("external", None)
    # no prototype in sight: nothing to vouch for
    assert got[("lib/other.c", 1, "memcpy")] == ("candidate", None)


def test_include_roots_come_from_the_configuration_then_the_compile_database() -> None:
    # `<api.h>` under a folder that is not called include/: the suffix
    # heuristic cannot find it; a configured root or the -I of a compiled
    # file can, the configured one first
    paths = ["third/sdk/api.h", "gen/api.h", "src/a.c", "src/include/api.h"]
    db = json.dumps(
        [
            {
                "directory": "/home/dev/proj/build",
                "file": "../src/a.c",
                "command": "cc -I../gen -isystem /usr/include -iquote ../third/sdk -c ../src/a.c",
            }
        ]
    ).encode()
    plain = PathIndex(paths)
    assert plain.resolve("c", "src/a.c", "<api.h>", "api.h") == "src/include/api.h"
    configured = PathIndex.of_tree(paths, {}, ["third/sdk"], None)
    assert configured.resolve("c", "src/a.c", "<api.h>", "api.h") == "third/sdk/api.h"
    compiled = PathIndex.of_tree(paths, {}, [], db)
    assert compiled.include_roots == ("gen", "third/sdk")  # /usr/include is not in the tree
    assert compiled.resolve("c", "src/a.c", "<api.h>", "api.h") == "gen/api.h"
    # a quoted include looks beside the file first, then the roots
    assert compiled.resolve("c", "src/a.c", "api.h", "api.h") == "gen/api.h"
    assert len({plain.digest, configured.digest, compiled.digest}) == 3
    # a database that does not parse, or names no file of the tree, adds nothing
    for bad in (b"{", b"[1, {}]", b'[{"directory": "/x", "file": "y.c", "command": "cc \'"}]'):
        assert PathIndex.of_tree(paths, {}, [], bad).include_roots == ()


CPP_FILES: dict[str, str | bytes] = {
    "include/app/util.hpp": "namespace app {\n"
    "int helper(int x);\n"
    "namespace detail { inline int twice(int x) { return 2 * x; } }\n"
    "}\n"
    "int helper(int x);\n",
    "src/util.cpp": '#include "app/util.hpp"\n'
    "namespace app {\n"
    "int helper(int x) { return detail::twice(x); }\n"
    "}\n"
    "int helper(int x) { return x; }\n",
    "src/main.cpp": "#include <app/util.hpp>\n"
    "namespace app {\n"
    "int run() { return helper(1) + app::detail::twice(2); }\n"
    "}\n"
    "int main() { return app::helper(3) + helper(4) + std::max(1, 2); }\n",
    "src/repo.cpp": "class Repo {\n"
    "public:\n"
    "  int size();\n"
    "  int count() { return size(); }\n"
    "};\n"
    "int Repo::size() { return 0; }\n",
}


def linked_calls(
    files: dict[str, str | bytes],
    language: str | None = None,
    kinds: tuple[str, ...] = ("call",),
) -> dict[tuple[str, int, str, int], tuple]:
    """(path, line, name, column) of every call (or edge of ``kinds``) ->
    (binding, "path::qualname"). ``language``: all files' (None: C or C++
    by suffix)."""
    symbols, edges = c_rows(files) if language is None else rows_of(files, language)
    linker = table_linker(symbols, edges)
    got = {}
    for e in edges:
        if e["kind"] in kinds:
            link = linker.link(e["binding"], e["via"], e["resolved_path"], e["target_qualname"])
            where = f"{link.symbol['path']}::{link.symbol['qualname']}" if link.symbol else None
            got[(e["path"], e["start_line"], e["target"], e["start_col"])] = (link.binding, where)
    return got


def test_a_cpp_call_with_template_arguments_binds_as_without() -> None:
    """fmt's `detail::make_arg<Context>(v)`: the call of the template,
    through its written scope; `static_cast<int>(x)` is a cast, no call."""
    files: dict[str, str | bytes] = {
        "core.h": "namespace fmt { namespace detail {\n"
        "template <typename T> int make_arg(T v) { return 0; }\n} }\n",
        "a.cc": '#include "core.h"\nnamespace fmt {\n'
        "int f() { return detail::make_arg<int>(1) + static_cast<int>(2.0); }\n}\n"
        "int g() { return fmt::detail::make_arg<long>(1); }\n",
    }
    got = linked_calls(files, "cpp")
    here = ("bound", "core.h::fmt.detail.make_arg")
    assert got[("a.cc", 3, "make_arg", 25)] == got[("a.cc", 5, "make_arg", 30)] == here
    assert not any(name == "static_cast" for (_p, _l, name, _c) in got)


def test_a_cpp_member_function_address_is_a_use_of_the_member() -> None:
    files: dict[str, str | bytes] = {
        "db/db_impl.h": (
            "namespace leveldb {\nclass DBImpl {\n public:\n"
            "  static void BGWork(void* db);\n  void Schedule();\n};\n}\n"
        ),
        "db/db_impl.cc": (
            '#include "db/db_impl.h"\nnamespace leveldb {\n'
            "void DBImpl::BGWork(void* db) {}\n"
            "void DBImpl::Schedule() { env_->Schedule(&DBImpl::BGWork, this); }\n"  # 4
            "}\n"
        ),
    }
    got = linked_calls(files, kinds=("use",))
    assert got == {
        ("db/db_impl.cc", 4, "BGWork", 50): ("bound", "db/db_impl.cc::leveldb.DBImpl.BGWork")
    }


def test_cpp_calls_bind_through_namespaces_and_classes() -> None:
    got = linked_calls(CPP_FILES)
    bound = {k[:3]: v for k, v in got.items()}
    # written with a scope, looked up from the enclosing namespace outward
    assert bound[("src/util.cpp", 3, "twice")] == (
        "bound",
        "include/app/util.hpp::app.detail.twice",
    )
    assert bound[("src/main.cpp", 3, "twice")] == (
        "bound",
        "include/app/util.hpp::app.detail.twice",
    )
    # a bare call in namespace app finds app's helper first, at the top the global one
    assert got[("src/main.cpp", 3, "helper", 19)] == ("bound", "src/util.cpp::app.helper")
    main_calls = {k[3]: v for k, v in got.items() if k[:3] == ("src/main.cpp", 5, "helper")}
    assert main_calls[25] == ("bound", "src/util.cpp::app.helper")  # app::helper(3)
    assert main_calls[37] == ("bound", "src/util.cpp::helper")  # helper(4)
    # the standard library's name is not the repository's
    assert bound[("src/main.cpp", 5, "max")] == ("external", None)
    # a member called by its bare name inside its class
    assert bound[("src/repo.cpp", 4, "size")] == ("bound", "src/repo.cpp::Repo.size")


USING_FILES: dict[str, str | bytes] = {
    "include/lib/api.hpp": "namespace lib {\n"
    "int helper(int x);\n"
    "namespace detail { inline int twice(int x) { return 2 * x; } }\n"
    "}\n",
    "src/api.cpp": '#include "lib/api.hpp"\nnamespace lib { int helper(int x) { return x; } }\n',
    "src/directive.cpp": "#include <lib/api.hpp>\n"
    "int before() { return twice(1); }\n"
    "using namespace lib::detail;\n"
    "int after() { return twice(2); }\n",
    "src/declaration.cpp": "#include <lib/api.hpp>\n"
    "using lib::helper;\n"
    "int a() { return helper(1) + twice(2); }\n",
    "src/scoped.cpp": "#include <lib/api.hpp>\n"
    "namespace lib { using namespace detail; int b() { return twice(3); } }\n"
    "int c() { { using namespace lib; return helper(4); } }\n"
    "int d() { return helper(5) + detail::twice(6); }\n"
    "using namespace lib;\n"
    "int e() { return detail::twice(7); }\n",
}


def test_cpp_calls_bind_through_using_directives_and_declarations() -> None:
    got = {k[:3]: v for k, v in linked_calls(USING_FILES).items()}
    twice = ("bound", "include/lib/api.hpp::lib.detail.twice")
    helper = ("bound", "src/api.cpp::lib.helper")
    # a directive is in force from where it is written to the end of its scope
    assert got[("src/directive.cpp", 2, "twice")][0] == "candidate"
    assert got[("src/directive.cpp", 4, "twice")] == twice
    # a declaration brings in its one name
    assert got[("src/declaration.cpp", 3, "helper")] == helper
    assert got[("src/declaration.cpp", 3, "twice")][0] == "candidate"
    # inside namespace lib, `detail` is lib::detail; a block's using ends with it
    assert got[("src/scoped.cpp", 2, "twice")] == twice
    assert got[("src/scoped.cpp", 3, "helper")] == helper
    assert got[("src/scoped.cpp", 4, "helper")][0] == "candidate"
    assert got[("src/scoped.cpp", 4, "twice")][0] == "candidate"
    # a written scope is looked up in the nominated namespace too
    assert got[("src/scoped.cpp", 6, "twice")] == twice


RECEIVER_FILES: dict[str, str | bytes] = {
    "include/shop/repo.hpp": "namespace shop {\n"
    "class Repo {\n"
    "public:\n"
    "  int save();\n"
    "  int size() const { return 0; }\n"
    "};\n"
    "}\n",
    "src/repo.cpp": '#include "shop/repo.hpp"\nnamespace shop { int Repo::save() { return 1; } }\n',
    "src/use.cpp": "#include <shop/repo.hpp>\n"
    "#include <vector>\n"
    "namespace shop {\n"
    "int f(Repo& r, const Repo* p, std::vector<Repo> v) {\n"
    "  Repo local;\n"
    "  auto made = Repo();\n"
    "  for (Repo& e : v) e.save();\n"
    "  return r.save() + p->size() + local.save() + made.save() + v.size();\n"
    "}\n"
    "}\n"
    "int g(shop::Repo* q) { return q->save(); }\n",
}


def test_cpp_member_calls_bind_by_the_receivers_declared_class() -> None:
    got = linked_calls(RECEIVER_FILES)
    # the member as its class declares it, in the header the caller includes
    save = ("bound", "include/shop/repo.hpp::shop.Repo.save")
    size = ("bound", "include/shop/repo.hpp::shop.Repo.size")
    assert got[("src/use.cpp", 7, "save", 22)] == save  # for (Repo& e : v)
    assert got[("src/use.cpp", 8, "save", 11)] == save  # Repo& r
    assert got[("src/use.cpp", 8, "size", 23)] == size  # const Repo* p
    assert got[("src/use.cpp", 8, "save", 38)] == save  # Repo local;
    # `auto` and a template's argument say nothing this rule reads
    assert got[("src/use.cpp", 8, "save", 52)][0] == "candidate"
    assert got[("src/use.cpp", 8, "size", 63)][0] == "candidate"
    assert got[("src/use.cpp", 11, "save", 33)] == save  # shop::Repo* q, at the top


FIELD_FILES: dict[str, str | bytes] = {
    # an export macro between `class` and the name, as most libraries write it
    "include/kv/slice.h": "#define KV_EXPORT\n"
    "namespace kv {\n"
    "class KV_EXPORT Slice {\n"
    " public:\n"
    "  const char* data() const { return data_; }\n"
    "  Slice& trim();\n"
    "  virtual Slice* copy() = 0;\n"
    " private:\n"
    "  const char* data_;\n"
    "};\n"
    "}\n",
    "src/store.cc": '#include "kv/slice.h"\n'
    "#include <string>\n"
    "namespace kv {\n"
    "class Store {\n"
    " public:\n"
    "  const char* first() { return key_->data(); }\n"
    "  void flush();\n"
    " private:\n"
    "  Slice* key_;\n"
    "  std::string name_;\n"
    "};\n"
    "void Store::flush() {\n"
    "  key_->trim();\n"
    "  this->key_->copy();\n"
    "  this->flush();\n"
    "  name_.size();\n"
    "  std::string key_;\n"
    "  key_.data();\n"
    "}\n"
    "}\n",
}


def test_cpp_member_calls_bind_through_the_methods_class_fields() -> None:
    got = linked_calls(FIELD_FILES)
    at = {(k[1], k[2]): v for k, v in got.items() if k[0] == "src/store.cc"}
    slice_ = "include/kv/slice.h::kv.Slice"
    # a field of the class whose body holds the method, or of `Store::flush`
    assert at[(6, "data")] == ("bound", f"{slice_}.data")
    assert at[(13, "trim")] == ("bound", f"{slice_}.trim")  # returns Slice&
    assert at[(14, "copy")] == ("bound", f"{slice_}.copy")  # this->key_, returns Slice*
    assert at[(15, "flush")] == ("bound", "src/store.cc::kv.Store.flush")  # this->
    assert at[(16, "size")] == ("external", None)  # std::string: never in the tree
    assert at[(18, "data")] == ("external", None)  # a local std::string shadows the field
    # the macro no longer makes the class a function and its methods top-level
    symbols, _ = c_rows(FIELD_FILES)
    assert {s["qualname"] for s in symbols if s["path"] == "include/kv/slice.h"} >= {
        "kv.Slice",
        "kv.Slice.data",
        "kv.Slice.trim",
        "kv.Slice.copy",
    }


def test_cpp_macros_know_no_namespace_and_test_bodies_are_fixture_methods() -> None:
    files: dict[str, str | bytes] = {
        "include/kv/check.h": "namespace kv {\n#define KV_CHECK(x) (x)\n}\n",
        "test/store_test.cc": '#include "kv/check.h"\n'
        "namespace kv {\n"
        "class StoreTest {\n"
        " public:\n"
        "  int Put(int k) { return k; }\n"
        "};\n"
        "TEST_F(StoreTest, Puts) {\n"
        "  KV_CHECK(Put(1));\n"
        "}\n"
        "}\n",
    }
    got = {(k[1], k[2]): v for k, v in linked_calls(files).items()}
    # a #define inside `namespace kv {` is KV_CHECK, as the preprocessor sees it
    assert got[(8, "KV_CHECK")] == ("bound", "include/kv/check.h::KV_CHECK")
    # googletest's TEST_F(StoreTest, ...) body is a method of the fixture
    assert got[(8, "Put")] == ("bound", "test/store_test.cc::kv.StoreTest.Put")


def test_cpp_members_a_class_inherits_bind_to_the_base() -> None:
    files: dict[str, str | bytes] = {
        "include/kv/env.h": "namespace kv {\n"
        "class Env { public: virtual int sync(); };\n"
        "class Wrapper : public Env { public: Env* target(); };\n"
        "}\n",
        "src/special.cc": '#include "kv/env.h"\n'
        "namespace kv {\n"
        "class Special : public Wrapper {\n"
        " public:\n"
        "  Env* run() { return target(); }\n"
        "  int go() { return sync(); }\n"
        "};\n"
        "class A : public B {};\n"
        "class B : public A { int f() { return missing(); } };\n"
        "}\n",
    }
    got = {(k[1], k[2]): v for k, v in linked_calls(files).items() if k[0] == "src/special.cc"}
    # Special's own scope has no target(): Wrapper's; sync() two classes up, Env's
    assert got[(5, "target")] == ("bound", "include/kv/env.h::kv.Wrapper.target")
    assert got[(6, "sync")] == ("bound", "include/kv/env.h::kv.Env.sync")
    # bases that derive from each other end, as a candidate
    assert got[(9, "missing")][0] == "candidate"
    # the `inherit` rows themselves: a base in the class's namespace, here or
    # through the includes, so `refs kv.Env` lists the classes derived from it
    bases = linked_calls(files, kinds=("inherit",))
    assert bases[("include/kv/env.h", 3, "Env", 23)] == ("bound", "include/kv/env.h::kv.Env")
    assert bases[("src/special.cc", 3, "Wrapper", 23)] == (
        "bound",
        "include/kv/env.h::kv.Wrapper",
    )
    assert bases[("src/special.cc", 8, "B", 17)] == ("bound", "src/special.cc::kv.B")


def test_cpp_a_namespace_a_macro_opens_is_read_through_the_macro() -> None:
    # fmt's FMT_BEGIN_NAMESPACE: the parser never sees `namespace fmt {`, so
    # `format` is named without it, and `fmt::format(...)` must still reach it
    files: dict[str, str | bytes] = {
        "include/fmt/base.h": "#define FMT_BEGIN_NAMESPACE namespace fmt {\n"
        "#define FMT_END_NAMESPACE }\n"
        "FMT_BEGIN_NAMESPACE\n"
        "int format(const char* f) { return 0; }\n"
        "FMT_END_NAMESPACE\n",
        "test/format_test.cc": '#include "fmt/base.h"\n'
        'int run() { return fmt::format("x") + other::format("y"); }\n',
    }
    got = {(k[0], k[1], k[3]): v for k, v in linked_calls(files).items()}
    assert got[("test/format_test.cc", 2, 24)] == ("bound", "include/fmt/base.h::format")
    # a namespace no macro the file sees opens stays a claim nobody defines
    assert got[("test/format_test.cc", 2, 45)][0] == "candidate"


def test_cpp_a_member_inherited_by_a_top_level_class_binds_to_the_base() -> None:
    # fmt's `specs.type()` on a `const format_specs&`, where the struct is
    # at the top level: the claim `format_specs.type` has no enclosing scope
    files: dict[str, str | bytes] = {
        "specs.h": "struct basic_specs { int type() const; };\n"
        "struct format_specs : basic_specs {};\n",
        "write.cc": '#include "specs.h"\n'
        "int write(const format_specs& specs) { return specs.type(); }\n",
    }
    got = {(k[0], k[1], k[2]): v for k, v in linked_calls(files).items()}
    assert got[("write.cc", 2, "type")] == ("bound", "specs.h::basic_specs.type")


HEADER_FIELD_FILES: dict[str, str | bytes] = {
    "include/kv/version.h": "namespace kv {\n"
    "class Version { public: int Ref(); };\n"
    "class VersionSet {\n"
    " public:\n"
    "  Version* current() const { return current_; }\n"
    " private:\n"
    "  Version* current_;\n"
    "};\n"
    "}\n",
    "src/version.cc": '#include "kv/version.h"\nnamespace kv { int Version::Ref() { return 1; } }\n',
    # the class declares its fields in its header; the methods are in the .cc
    "src/db.h": "namespace kv {\n"
    "class VersionSet;\n"
    "struct Pair { VersionSet* first; };\n"
    "class Base { protected: VersionSet* base_set_; };\n"
    "class DB : public Base {\n"
    " public:\n"
    "  int Get();\n"
    " private:\n"
    "  VersionSet* versions_;\n"
    "  struct Holder { VersionSet* set; } holder_;\n"
    "  Pair pair_;\n"
    "  Unknown* gone_;\n"
    "};\n"
    "}\n",
    "src/db.cc": '#include "db.h"\n'
    '#include "kv/version.h"\n'
    "#include <vector>\n"
    "namespace kv {\n"
    "int DB::Get() {\n"
    "  versions_->current();\n"
    "  this->versions_->current();\n"
    "  base_set_->current();\n"
    "  gone_->current();\n"
    "  Version* v = new Version;\n"
    "  return v->Ref();\n"
    "}\n"
    "int Other(std::vector<int> versions_) { return versions_.size(); }\n"
    "}\n",
    "test/db_test.cc": '#include "kv/version.h"\n'
    "namespace kv {\n"
    "class DBTest { protected: VersionSet* set_; };\n"
    "TEST_F(DBTest, Current) {\n"
    "  set_->current();\n"
    "}\n"
    "}\n",
}


def test_cpp_member_calls_bind_through_fields_another_file_declares() -> None:
    got = {k[:3]: v for k, v in linked_calls(HEADER_FIELD_FILES).items()}
    current = ("bound", "include/kv/version.h::kv.VersionSet.current")
    # versions_ is declared in db.h as a VersionSet*: its current()
    assert got[("src/db.cc", 6, "current")] == current
    assert got[("src/db.cc", 7, "current")] == current  # this->versions_
    assert got[("src/db.cc", 8, "current")] == current  # a field DB inherits from Base
    # a field whose class is nowhere in the repository binds nothing
    assert got[("src/db.cc", 9, "current")][0] == "candidate"
    # `new Version` names the class, as `Version()` does
    assert got[("src/db.cc", 10, "Version")] == ("bound", "include/kv/version.h::kv.Version")
    assert got[("src/db.cc", 11, "Ref")] == ("bound", "include/kv/version.h::kv.Version.Ref")
    # a parameter named like a field is the parameter, whatever its type
    assert got[("src/db.cc", 13, "size")][0] == "candidate"
    # a googletest fixture's field in a TEST_F body
    assert got[("test/db_test.cc", 5, "current")] == current
    # each field's declared type is a fact the linker reads, never a reference
    _, edges = c_rows(HEADER_FIELD_FILES)
    facts = {(e["source"], e["target_qualname"]) for e in edges if e["kind"] == "value"}
    assert facts >= {("kv.DB.versions_", "VersionSet"), ("kv.Base.base_set_", "VersionSet")}
    assert not any(e["source"].endswith(".gone_") for e in edges if e["kind"] == "call")


def test_a_call_through_two_fields_follows_each_declared_type() -> None:
    files = dict(HEADER_FIELD_FILES)
    files["src/chain.cc"] = (
        '#include "db.h"\n#include "kv/version.h"\n'
        "namespace kv {\n"
        "int DB::Scan() {\n"
        "  holder_.set->current();\n"
        "  return pair_.first->current() != 0;\n"
        "}\n"
        "struct State { DB* db; };\n"
        "int Use(State* s) { return s->db->Get(); }\n"
        "}\n"
    )
    got = {k[:3]: v for k, v in linked_calls(files).items() if k[0] == "src/chain.cc"}
    current = ("bound", "include/kv/version.h::kv.VersionSet.current")
    # holder_ (a struct declared with the field, in db.h), then its set
    assert got[("src/chain.cc", 5, "current")] == current
    # pair_ (a Pair: a plain struct of a namespace in db.h), then its first
    assert got[("src/chain.cc", 6, "current")] == current
    # a parameter's class declared here, then a field declared in a header
    assert got[("src/chain.cc", 9, "Get")] == ("bound", "src/db.h::kv.DB.Get")


def test_a_header_edit_relinks_calls_through_its_fields_without_their_rows() -> None:
    files = dict(HEADER_FIELD_FILES)
    files["include/kv/log.h"] = "namespace kv { class Log { public: int current(); }; }\n"
    files["src/db.cc"] = '#include "db.h"\n#include "kv/log.h"\n' + str(files["src/db.cc"])
    retyped = dict(files)
    retyped["src/db.h"] = str(files["src/db.h"]).replace("VersionSet* versions_", "Log* versions_")
    before, after = linked_calls(files), linked_calls(retyped)
    # the calling file's own rows are the same: only the header's were rewritten
    _, old_edges = c_rows(files)
    _, new_edges = c_rows(retyped)
    assert [e for e in old_edges if e["path"] == "src/db.cc"] == [
        e for e in new_edges if e["path"] == "src/db.cc"
    ]
    call = ("src/db.cc", 8, "current", 13)  # versions_->current()
    assert before[call] == ("bound", "include/kv/version.h::kv.VersionSet.current")
    assert after[call] == ("bound", "include/kv/log.h::kv.Log.current")


def test_a_call_on_what_a_member_returns_follows_the_declared_return() -> None:
    files = dict(HEADER_FIELD_FILES)
    files["include/kv/env.h"] = (
        "#include <string>\n"
        "namespace kv {\n"
        "class Env {\n"
        " public:\n"
        "  static Env* Default();\n"
        "  int Sleep();\n"
        "  std::string Name() const;\n"
        "};\n"
        "}\n"
    )
    files["src/calls.cc"] = (
        '#include "db.h"\n#include "kv/version.h"\n#include "kv/env.h"\n'
        "namespace kv {\n"
        "int DB::Get() {\n"
        "  versions_->current()->Ref();\n"
        "  Env::Default()->Sleep();\n"
        "  Env::Default()->Name().size();\n"
        "  return Self()->Get();\n"
        "}\n"
        "}\n"
    )
    files["src/db.h"] = str(files["src/db.h"]).replace(
        "  int Get();\n", "  int Get();\n  DB* Self();\n"
    )
    got = {k[:3]: v for k, v in linked_calls(files).items() if k[0] == "src/calls.cc"}
    # versions_ (a VersionSet, in db.h), current() (returns a Version*), Ref
    assert got[("src/calls.cc", 6, "Ref")] == ("bound", "include/kv/version.h::kv.Version.Ref")
    # a class written before the call: Env::Default() returns an Env*
    assert got[("src/calls.cc", 7, "Sleep")] == ("bound", "include/kv/env.h::kv.Env.Sleep")
    # what a member returns may be the standard library's
    assert got[("src/calls.cc", 8, "size")] == ("external", None)
    # a member called bare in a method is the class's: Self() returns a DB*
    # (whose Get this file defines)
    assert got[("src/calls.cc", 9, "Get")] == ("bound", "src/calls.cc::kv.DB.Get")


def test_an_auto_local_is_what_initialised_it() -> None:
    files: dict[str, str | bytes] = {
        "include/kv/version.h": "namespace kv {\n"
        "class Version { public: int Ref(); };\n"
        "class VersionSet { public: Version* current(); };\n"
        "}\n",
        "src/a.cc": '#include "kv/version.h"\n#include <memory>\n#include <vector>\n'
        "namespace kv {\n"
        "class DB { VersionSet* versions_; int Get(); };\n"
        "int DB::Get() {\n"
        "  auto* v = versions_->current();\n"
        "  v->Ref();\n"
        "  auto s = std::make_unique<VersionSet>();\n"
        "  s->current();\n"
        "  auto n = new Version();\n"
        "  std::vector<int> xs;\n"
        "  auto it = xs.begin();\n"
        "  it->Ref();\n"
        "  return n->Ref();\n"
        "}\n"
        "}\n",
    }
    got = {k[:3]: v for k, v in linked_calls(files).items()}
    ref = ("bound", "include/kv/version.h::kv.Version.Ref")
    assert got[("src/a.cc", 8, "Ref")] == ref  # auto* v = versions_->current()
    current = ("bound", "include/kv/version.h::kv.VersionSet.current")
    assert got[("src/a.cc", 10, "current")] == current  # std::make_unique<VersionSet>
    assert got[("src/a.cc", 15, "Ref")] == ref  # auto n = new Version()
    # what a template's member returns is not followed
    assert got[("src/a.cc", 14, "Ref")][0] == "candidate"


def test_cpp_nested_namespaces_and_calls_in_a_namespace_body() -> None:
    files: dict[str, str | bytes] = {
        "include/app/math.h": "namespace app {\nint Cpus();\n}\n",
        "src/math.cc": '#include "app/math.h"\nnamespace app { int Cpus() { return 2; } }\n',
        "src/bench.cc": '#include "app/math.h"\n'
        "namespace app::bench {\n"
        "int Run() { return Cpus(); }\n"
        "}\n"
        "namespace app {\n"
        "REGISTER(Run)->Threads(Cpus());\n"
        "}\n",
    }
    got = {k[:3]: v for k, v in linked_calls(files).items()}
    cpus = ("bound", "src/math.cc::app.Cpus")
    symbols, _ = c_rows(files)
    # `namespace app::bench {` is two scopes: Run is app.bench.Run
    assert "app.bench.Run" in {s["qualname"] for s in symbols}
    assert got[("src/bench.cc", 3, "Cpus")] == cpus
    # a call in a namespace's body, in no function (a macro at the top)
    assert got[("src/bench.cc", 6, "Cpus")] == cpus


def test_refs_of_a_cpp_constructor_list_the_instantiations(
    tmp_path: Path, prefect_api: str, run_cli: Any
) -> None:
    files: dict[str, str | bytes] = {
        "include/kv/block.h": "namespace kv {\n"
        "class Block {\n"
        " public:\n"
        "  explicit Block(int size);\n"
        "  int size() const;\n"
        "};\n"
        "}\n",
        "src/block.cc": '#include "kv/block.h"\nnamespace kv { Block::Block(int size) {} }\n',
        "src/use.cc": '#include "kv/block.h"\n'
        "namespace kv {\n"
        "int f() {\n"
        "  Block* b = new Block(4);\n"
        "  return Block(2).size() + b->size();\n"
        "}\n"
        "}\n",
    }
    repo = make_repo(tmp_path / "repo", files)
    store = (tmp_path / "store").as_uri()
    code, _out, err = run_cli("--repo", str(repo), "--store", store, "build",
                              "--runner", "threads", "--shards", "2")  # fmt: skip
    assert code == 0, err
    code, out, err = run_cli("--repo", str(repo), "--store", store, "--json", "refs",
                             "Block::Block")  # fmt: skip
    assert code == 0, err
    doc = json.loads(out)
    # `new Block(4)` and `Block(2)` bind to the class: each runs a constructor
    assert places(doc["bound"]) == [("src/use.cc", 4), ("src/use.cc", 5)]
    assert all("instantiates kv.Block" in r["via"] for r in doc["bound"])


def test_csharp_binds_own_class_methods_and_types_of_its_namespace_folder() -> None:
    files: dict[str, str | bytes] = {
        "Shop/Orders.cs": "namespace Shop {\n"
        "  partial class Orders : Store {\n"
        "    void Save() { Load(); this.Load(); Flush(); Sync(); }\n"
        "    void Load() { var c = new Cart(); var z = new Zone(); }\n"
        "  }\n"
        "}\n",
        "Shop/Orders.Flush.cs": "namespace Shop { partial class Orders { void Flush() {} } }\n",
        "Shop/Store.cs": "namespace Shop;\npublic class Store { public void Sync() {} }\n",
        "Shop/Cart.cs": "namespace Shop;\npublic class Cart {}\n",
        "Geo/Zone.cs": "namespace Geo { public class Zone {} }\n",
        "Geo/Map.cs": "namespace Geo { public class Map {} }\n",
        "Shop/Routes.cs": "using Geo;\nnamespace Shop { class Routes { Map m = new Map(); } }\n",
    }
    linked = linked_calls(files, "csharp", ("call", "inherit"))
    got = {(k[1], k[2], k[3]): v for k, v in linked.items() if k[0] == "Shop/Orders.cs"}
    at = {(k[0], k[1]): v for k, v in got.items()}
    # a bare M() or this.M() is the class's: here, in another part of a
    # partial class, or in a base the namespace defines in a sibling file
    assert got[(3, "Load", 18)] == ("bound", "Shop/Orders.cs::Shop.Orders.Load")
    assert got[(3, "Load", 31)] == ("bound", "Shop/Orders.cs::Shop.Orders.Load")
    assert at[(3, "Flush")] == ("bound", "Shop/Orders.Flush.cs::Shop.Orders.Flush")
    assert at[(3, "Sync")] == ("bound", "Shop/Store.cs::Shop.Store.Sync")
    assert at[(2, "Store")] == ("bound", "Shop/Store.cs::Shop.Store")
    assert at[(4, "Cart")] == ("bound", "Shop/Cart.cs::Shop.Cart")
    # another namespace's type, with no using: not this namespace's
    assert at[(4, "Zone")][0] == "candidate"
    # ... and with one: found in the folder its `using Geo;` resolves to
    routes = [v for k, v in linked.items() if k[0] == "Shop/Routes.cs"]
    assert routes == [("bound", "Geo/Map.cs::Geo.Map")]


def test_csharp_member_calls_bind_by_the_receivers_declared_type() -> None:
    files: dict[str, str | bytes] = {
        "src/Shop/Orders.cs": "using Data;\n"
        "namespace Shop {\n"
        "  class Orders {\n"
        "    private readonly Repository repo;\n"
        "    Cart Basket { get; }\n"
        "    void Save(Repository r, int n) {\n"
        "      var c = new Cart(); c.Add(); repo.Find(1); r.Find(2); this.repo.Find(3);\n"
        "      Basket.Add(); foreach (Repository e in all) e.Find(4); n.ToString();\n"
        "      Func<Repository, int> f = repo => repo.Count(); var t = new Ticket(); t.Print();\n"
        "    }\n"
        "  }\n"
        "}\n",
        "src/Shop/Cart.cs": "namespace Shop { public class Cart { public void Add() {} } }\n",
        # a namespace may span folders: Shop.Ticket lives elsewhere
        "src/Printing/Ticket.cs": "namespace Shop { public class Ticket { public void Print() {} } }\n",
        "src/Data/Repository.cs": "namespace Data { public class Repository {\n"
        "  public void Find(int i) {}\n  public int Count() => 0;\n} }\n",
    }
    got: dict[tuple[int, str], list[tuple[str, str | None]]] = {}
    for (path, line, name, _col), (binding, where) in sorted(linked_calls(files, "csharp").items()):
        if path == "src/Shop/Orders.cs":
            qualname = where.partition("::")[2] if where else None
            got.setdefault((line, name), []).append((binding, qualname))
    find = ("bound", "Data.Repository.Find")
    # a local, a parameter, a field, this.field; a property; a foreach variable
    assert got[(7, "Add")] == [("bound", "Shop.Cart.Add")]
    assert got[(7, "Find")] == [find, find, find]
    assert got[(8, "Add")] == [("bound", "Shop.Cart.Add")]
    assert got[(8, "Find")] == [find]
    assert got[(8, "ToString")] == [("external", None)]  # an int: System's Int32
    # a lambda's parameter hides the field of its name; a namespace's other folder
    assert got[(9, "Count")] == [("candidate", None)]
    assert got[(9, "Print")] == [("bound", "Shop.Ticket.Print")]


def test_csharp_extension_methods_bind_on_the_type_they_extend() -> None:
    # MediatR's `services.AddMediatR(...)`: an extension of IServiceCollection,
    # called on an IServiceCollection, or on a ServiceCollection (the class C#
    # names the interface after); two classes extending with one name: no proof
    files: dict[str, str | bytes] = {
        "src/DI/Extensions.cs": "namespace Microsoft.Extensions.DependencyInjection {\n"
        "  public static class ServiceCollectionExtensions {\n"
        "    public static IServiceCollection AddMediatR(this IServiceCollection s) => s;\n"
        "    public static T Pick<T>(this T s) => s;\n"
        "    public static int Twice(this Type t) => 2;\n"
        "  }\n"
        "  public static class More { public static int Twice(this Type t) => 3; }\n"
        "}\n",
        "src/DI/Seq.cs": "namespace Acme { public static class Seq {\n"
        "  public static int Total(this IEnumerable<int> xs) => 0;\n} }\n",
        "samples/Program.cs": "namespace Samples {\n"
        "  class Program {\n"
        "    void Main(IServiceCollection services, ServiceCollection concrete, Type t) {\n"
        "      services.AddMediatR(); concrete.AddMediatR(); t.Twice(); t.Pick();\n"
        "    }\n"
        "    void More(List<int> xs, StringWriter w) { xs.Total(); w.Flush(); }\n"
        "  }\n"
        "}\n",
    }
    got = {
        (k[2], k[3]): v
        for k, v in linked_calls(files, "csharp").items()
        if k[0] == "samples/Program.cs"
    }
    add = "src/DI/Extensions.cs::Microsoft.Extensions.DependencyInjection.ServiceCollectionExtensions.AddMediatR"
    assert got[("AddMediatR", 15)] == ("bound", add)
    assert got[("AddMediatR", 38)] == ("bound", add)
    assert got[("Twice", 54)][0] == "candidate"  # two classes: not provable
    assert got[("Pick", 65)][0] == "candidate"  # `this T`: extends anything
    # a List's base may be what an extension extends; StringWriter has none here
    assert got[("Total", 49)][0] == "candidate"
    assert got[("Flush", 60)][0] == "external"


def test_kotlin_extension_functions_bind_from_any_file() -> None:
    # expo's `fun View.isErrorView()`, called on an android View elsewhere: the
    # repository's extension, where the claim alone said "outside"
    files: dict[str, str | bytes] = {
        "src/main/kotlin/app/Repo.kt": "package app\nclass Repo { fun save() {} }\n",
        "src/main/kotlin/app/Ext.kt": "package app\nimport android.view.View\n"
        "fun View.isErrorView(): Boolean = false\nfun Repo.saveAll() {}\n",
        "src/main/kotlin/app/Use.kt": "package app\nimport android.view.View\n"
        "fun use(v: View, r: Repo) { v.isErrorView(); v.invalidate(); r.saveAll() }\n",
    }
    got = {k[2]: v for k, v in linked_calls(files, "kotlin").items() if k[0].endswith("Use.kt")}
    assert got["isErrorView"] == ("bound", "src/main/kotlin/app/Ext.kt::isErrorView")
    assert got["invalidate"] == ("external", None)  # View's own, outside
    assert got["saveAll"] == ("bound", "src/main/kotlin/app/Ext.kt::saveAll")


def test_kotlin_imports_of_members_and_top_level_functions_resolve() -> None:
    # okhttp: a companion's extension, an object in a file of another name,
    # a top-level function in `-UtilJvm.kt`; kotlinx is outside, whatever
    # folder of the repository is called `coroutines`
    files: dict[str, str | bytes] = {
        "okhttp/src/main/kotlin/okhttp3/HttpUrl.kt": "package okhttp3\nclass HttpUrl {\n"
        "  companion object { fun String.toHttpUrl(): HttpUrl = HttpUrl() }\n}\n",
        "testing/src/main/kotlin/okhttp3/TestUtilJvm.kt": "package okhttp3\n"
        "object TestUtil { fun headerEntries(): Int = 1 }\n",
        "okhttp/src/main/kotlin/okhttp3/internal/-UtilJvm.kt": "package okhttp3.internal\n"
        "fun closeQuietly() {}\n",
        "app/src/main/kotlin/app/coroutines/Job.kt": "package app.coroutines\nfun launch() {}\n",
        # package okhttp3.okio, not okio: `okio.Buffer` stays outside
        "okhttp/src/main/kotlin/okhttp3/okio/LoggingFilesystem.kt": "package okhttp3.okio\n"
        "class LoggingFilesystem\n",
        "okhttp/src/test/kotlin/okhttp3/UrlTest.kt": "package okhttp3\n"
        "import okhttp3.HttpUrl.Companion.toHttpUrl\nimport okhttp3.TestUtil.headerEntries\n"
        "import okhttp3.internal.closeQuietly\nimport kotlinx.coroutines.launch\n"
        "import okio.Buffer\n"
        'fun t() { "x".toHttpUrl(); headerEntries(); closeQuietly(); launch(); Buffer() }\n',
    }
    got = {k[2]: v for k, v in linked_calls(files, "kotlin").items() if k[0].endswith("UrlTest.kt")}
    assert got["toHttpUrl"] == (
        "bound",
        "okhttp/src/main/kotlin/okhttp3/HttpUrl.kt::HttpUrl.toHttpUrl",
    )
    assert (
        got["headerEntries"][1]
        == "testing/src/main/kotlin/okhttp3/TestUtilJvm.kt::TestUtil.headerEntries"
    )
    assert (
        got["closeQuietly"][1]
        == "okhttp/src/main/kotlin/okhttp3/internal/-UtilJvm.kt::closeQuietly"
    )
    assert got["launch"] == ("external", None)
    assert got["Buffer"] == ("external", None)


def test_csharp_sees_the_namespaces_around_its_own_and_calls_static_methods() -> None:
    """`Acme.Json.Tests.Sub` sees `Acme.Json`'s types with no `using`, as
    C# looks names up outward; `JsonConvert.Serialize()`, a capitalised
    name no variable has, is a type's static method; `Check.Same()` is what
    `using Check = ...` names."""
    files: dict[str, str | bytes] = {
        "Src/Lib/JsonConvert.cs": "namespace Acme.Json {\n"
        "  public static class JsonConvert { public static string Serialize(object o) => null; }\n"
        "  public class Base { public bool Read() => true; }\n"
        "  public class Reader : Base {}\n"
        "}\n",
        "Src/Testing/XAssert.cs": "namespace Acme.Testing {\n"
        "  public static class XAssert { public static void Same(object a, object b) {} }\n}\n",
        "Src/Tests/T.cs": "using System;\nusing Check = Acme.Testing.XAssert;\n"
        "namespace Acme.Json.Tests.Sub {\n  public class T {\n    public void F() {\n"
        "      JsonConvert.Serialize(1);\n      Reader r = new Reader();\n      r.Read();\n"
        "      Console.WriteLine(1);\n      Check.Same(1, 2);\n    }\n  }\n}\n",
    }
    linked = linked_calls(files, "csharp")
    got = {(k[1], k[2]): v for k, v in linked.items() if k[0] == "Src/Tests/T.cs"}
    json = "Src/Lib/JsonConvert.cs::Acme.Json"
    assert got[(6, "Serialize")] == ("bound", f"{json}.JsonConvert.Serialize")
    assert got[(7, "Reader")] == ("bound", f"{json}.Reader")
    assert got[(8, "Read")] == ("bound", f"{json}.Base.Read")
    assert got[(9, "WriteLine")][0] == "external"  # no C# file here defines a Console
    assert got[(10, "Same")] == ("bound", "Src/Testing/XAssert.cs::Acme.Testing.XAssert.Same")


def test_csharp_global_usings_reach_their_projects_files_and_the_global_namespace_all() -> None:
    """serilog: `global using Serilog.Events;` in src/Serilog/GlobalUsings.cs
    imports for every file of that project (the folder of its .csproj),
    not for the test projects, each with its own; `static class Guard` in
    no namespace is every file's `Guard`."""
    files: dict[str, str | bytes] = {
        "src/App/GlobalUsings.cs": "global using App.Events;\n",
        "src/App/Events/Scalar.cs": "namespace App.Events;\n"
        "public class Scalar { public static Scalar Make() => new Scalar(); }\n",
        "src/App/Guard.cs": "static class Guard { public static void Check(object o) {} }\n",
        "src/App/Core/Logger.cs": "namespace App.Core;\nclass Logger {\n  void Log() {\n"
        "    Scalar.Make();\n    Guard.Check(1);\n    Some.Event();\n  }\n}\n",  # 4-6
        "tests/App.Tests/GlobalUsings.cs": "global using App.Tests.Support;\n",
        "tests/App.Tests/Support/Some.cs": "namespace App.Tests.Support;\n"
        "static class Some { public static void Event() {} }\n",
        "tests/App.Tests/LoggerTests.cs": "namespace App.Tests;\n"
        "class LoggerTests { void T() { Some.Event(); } }\n",
        "tests/Perf/GlobalUsings.cs": "global using Perf.Support;\n",
        "tests/Perf/Support/Some.cs": "namespace Perf.Support;\n"
        "static class Some { public static void Event() {} }\n",
    }
    projects = ["src/App/App.csproj", "tests/App.Tests/App.Tests.csproj", "tests/Perf/Perf.csproj"]
    symbols, edges = rows_of(files, "csharp")
    linker = table_linker(symbols, edges, projects)
    got = {}
    for e in edges:
        if e["kind"] == "call":
            link = linker.link(e["binding"], e["via"], e["resolved_path"], e["target_qualname"])
            where = f"{link.symbol['path']}::{link.symbol['qualname']}" if link.symbol else None
            got[(e["path"], e["start_line"], e["target"])] = (link.binding, where)
    logger = "src/App/Core/Logger.cs"
    assert got[(logger, 4, "Make")] == ("bound", "src/App/Events/Scalar.cs::App.Events.Scalar.Make")
    assert got[(logger, 5, "Check")] == ("bound", "src/App/Guard.cs::Guard.Check")
    assert got[(logger, 6, "Event")][0] == "candidate"  # the tests' Some is not the app's
    some = "tests/App.Tests/Support/Some.cs::App.Tests.Support.Some.Event"
    assert got[("tests/App.Tests/LoggerTests.cs", 2, "Event")] == ("bound", some)


def test_csharp_and_java_members_are_read_through_their_declared_types() -> None:
    """serilog's `new LoggerConfiguration().WriteTo.Sink(s).CreateLogger()`:
    a property's type (here in another namespace, which Config.cs imports)
    says what reading it gives; Java's fields alike; a Java call never
    names a field, so jsoup's `div.childNodes()` on an Element (which has
    a field `childNodes`) is Node's method."""
    cs: dict[str, str | bytes] = {
        "src/A/Config.cs": "using Acme.Sinks2;\nnamespace Acme {\npublic class Config {\n"
        "  public Sinks WriteTo { get; }\n  public Levels MinimumLevel;\n"
        "  public Logger CreateLogger() => null;\n}\n}\n",
        "src/B/Sinks.cs": "namespace Acme.Sinks2 {\n"
        "public class Sinks { public Acme.Config Sink(object s) => null; } }\n",
        "src/A/Levels.cs": "namespace Acme { public class Levels { public Config Is(int l) => null; } }\n",
        "src/A/Logger.cs": "namespace Acme { public class Logger { public void Info() {} } }\n",
        "src/A/Use.cs": "namespace Acme {\nclass Use {\n  void F(Config c) {\n"
        "    var lc = new Config().MinimumLevel.Is(1);\n    lc.CreateLogger();\n"  # 4, 5
        "    new Config().WriteTo.Sink(null).CreateLogger();\n"  # 6
        "    c.WriteTo.Sink(null);\n  }\n}\n}\n",  # 7
    }
    got = {(k[1], k[2]): v for k, v in linked_calls(cs, "csharp").items() if k[0] == "src/A/Use.cs"}
    assert got[(4, "Is")] == ("bound", "src/A/Levels.cs::Acme.Levels.Is")
    assert got[(5, "CreateLogger")] == got[(6, "CreateLogger")]
    assert got[(5, "CreateLogger")] == ("bound", "src/A/Config.cs::Acme.Config.CreateLogger")
    assert (
        got[(6, "Sink")] == got[(7, "Sink")] == ("bound", "src/B/Sinks.cs::Acme.Sinks2.Sinks.Sink")
    )
    java: dict[str, str | bytes] = {
        "src/main/java/acme/Node.java": "package acme;\n"
        "public class Node { public Node[] childNodes() { return null; } }\n",
        "src/main/java/acme/Element.java": "package acme;\npublic class Element extends Node {\n"
        "  Node[] childNodes;\n  public Levels levels;\n}\n",
        "src/main/java/acme/Levels.java": "package acme;\npublic class Levels { public void set(int l) {} }\n",
        "src/main/java/acme/Use.java": "package acme;\nclass Use {\n"
        "  void f(Element e) {\n    e.levels.set(1);\n    e.childNodes();\n  }\n}\n",  # 4, 5
    }
    got = {
        (k[1], k[2]): v for k, v in linked_calls(java, "java").items() if k[0].endswith("Use.java")
    }
    assert got[(4, "set")] == ("bound", "src/main/java/acme/Levels.java::Levels.set")
    assert got[(5, "childNodes")] == ("bound", "src/main/java/acme/Node.java::Node.childNodes")


def test_a_csharp_partial_class_is_one_type_across_folders_and_generic_receivers() -> None:
    """Polly: `public partial class Policy` in twelve files of three folders;
    `Policy<Result>.HandleResult(r)` from a test namespace under `Polly` is
    the member in whichever part defines it."""
    files: dict[str, str | bytes] = {
        "src/Polly/Policy.cs": "namespace Polly;\npublic partial class Policy { }\n",
        "src/Polly/Wrap/PolicyWrap.cs": "namespace Polly;\n"
        "public partial class Policy { public static Policy Wrap() => null; }\n",
        "src/Polly/Handle/Policy.HandleSyntax.cs": "namespace Polly;\n"
        "public partial class Policy { public static Policy HandleResult(int r) => null; }\n",
        "test/Polly.Specs/Registry/Specs.cs": "namespace Polly.Specs.Registry;\n"
        "public class Specs {\n  void F() {\n    Policy<int>.HandleResult(1);\n"
        "    Policy.Wrap();\n  }\n}\n",  # 4, 5
    }
    got = {
        (k[1], k[2]): v
        for k, v in linked_calls(files, "csharp").items()
        if k[0] == "test/Polly.Specs/Registry/Specs.cs"
    }
    handle = "src/Polly/Handle/Policy.HandleSyntax.cs::Polly.Policy.HandleResult"
    assert got[(4, "HandleResult")] == ("bound", handle)
    assert got[(5, "Wrap")] == ("bound", "src/Polly/Wrap/PolicyWrap.cs::Polly.Policy.Wrap")


def test_csharp_project_file_using_items_are_global_usings_of_the_project() -> None:
    """Polly's test projects: `<Using Include="Polly.Specs.Helpers" />` in the
    .csproj instead of a GlobalUsings.cs; `Remove` items and MSBuild
    expressions are no namespaces."""
    from freshindex.indexer.msbuild import project_usings

    csproj = (
        b'<Project Sdk="Microsoft.NET.Sdk">\n  <ItemGroup>\n'
        b'    <Using Include="Acme.Specs.Helpers" />\n'
        b'    <Using Include="Acme.Checks" Alias="Check" />\n'
        b'    <Using Remove="System.Net.Http" />\n    <Using Include="$(Extra)" />\n'
        b"  </ItemGroup>\n</Project>\n"
    )
    usings = project_usings("test/Specs/Specs.csproj", csproj)
    assert [(u["module"], u["alias"], u["start_line"]) for u in usings] == [
        ("Acme.Specs.Helpers", None, 3),
        ("Acme.Checks", "Check", 4),
    ]
    files: dict[str, str | bytes] = {
        "test/Specs/Helpers/Raise.cs": "namespace Acme.Specs.Helpers;\n"
        "public static class Raise { public static void Twice() {} }\n",
        "test/Specs/Checks.cs": "namespace Acme;\npublic static class Checks { public static void Same() {} }\n",
        "test/Specs/Retry/RetrySpecs.cs": "namespace Acme.Specs.Retry;\n"
        "class RetrySpecs { void F() { Raise.Twice(); Check.Same(); } }\n",
        "src/App/Use.cs": "namespace App;\nclass Use { void F() { Raise.Twice(); } }\n",
    }
    symbols, edges = rows_of(files, "csharp")
    projects = ["test/Specs/Specs.csproj", "src/App/App.csproj"]
    linker = table_linker(symbols, edges, projects, usings)
    got = {}
    for e in edges:
        if e["kind"] == "call":
            link = linker.link(e["binding"], e["via"], e["resolved_path"], e["target_qualname"])
            where = f"{link.symbol['path']}::{link.symbol['qualname']}" if link.symbol else None
            got[(e["path"], e["target"])] = (link.binding, where)
    specs = "test/Specs/Retry/RetrySpecs.cs"
    assert got[(specs, "Twice")] == (
        "bound",
        "test/Specs/Helpers/Raise.cs::Acme.Specs.Helpers.Raise.Twice",
    )
    assert got[(specs, "Same")] == ("bound", "test/Specs/Checks.cs::Acme.Checks.Same")
    assert got[("src/App/Use.cs", "Twice")][0] != "bound"  # another project's usings


def test_a_csharp_var_holds_what_its_call_returns() -> None:
    files: dict[str, str | bytes] = {
        "src/Shop/Orders.cs": "namespace Shop {\n"
        "  class Orders {\n"
        "    Cart Make() => new Cart();\n"
        "    void Save() {\n"
        "      var a = Cart.Open();\n      a.Add();\n"
        "      var b = Make();\n      b.Add();\n"
        "      var c = a.Child();\n      c.Add();\n"
        "      var d = Cart.Count();\n      d.Add();\n"
        "    }\n"
        "  }\n"
        "}\n",
        "src/Shop/Cart.cs": "namespace Shop { public class Cart {\n"
        "  public static Cart Open() => new Cart();\n  public Cart Child() => this;\n"
        "  public static int Count() => 0;\n  public void Add() {}\n} }\n",
    }
    got = {
        line: (binding, where.partition("::")[2] if where else None)
        for (path, line, name, _col), (binding, where) in linked_calls(files, "csharp").items()
        if path == "src/Shop/Orders.cs" and name == "Add"
    }
    add = ("bound", "Shop.Cart.Add")
    # a static method of the type, one of this class, one of what a holds;
    # not what Count() returns: an int
    assert got == {6: add, 8: add, 10: add, 12: ("candidate", None)}


def test_a_smart_pointer_is_its_pointee_through_arrow_and_its_own_through_dot() -> None:
    files: dict[str, str | bytes] = {
        "include/kv/repo.h": "namespace kv {\n"
        "class Repo { public: int Save(); int reset(); };\n"
        "class Store {\n"
        " public:\n"
        "  std::unique_ptr<Repo> Make();\n"
        " private:\n"
        "  std::unique_ptr<Repo> repo_;\n"
        "  std::shared_ptr<Repo> shared_;\n"
        "  int Run();\n"
        "};\n"
        "}\n",
        "src/store.cc": '#include "kv/repo.h"\n#include <memory>\n'
        "namespace kv {\n"
        "int Store::Run() {\n"
        "  repo_->Save();\n"
        "  repo_.reset();\n"
        "  repo_->reset();\n"
        "  shared_.get()->Save();\n"
        "  std::unique_ptr<Repo> local = Make();\n"
        "  local->Save();\n"
        "  return Make()->Save();\n"
        "}\n"
        "}\n",
    }
    got = {k[:4]: v for k, v in linked_calls(files).items() if k[0] == "src/store.cc"}
    at = {(k[1], k[2]): v for k, v in got.items()}
    save = ("bound", "include/kv/repo.h::kv.Repo.Save")
    assert at[(5, "Save")] == save  # a field declared in the header: ->
    assert at[(6, "reset")] == ("external", None)  # the pointer's own: .
    assert at[(7, "reset")] == ("bound", "include/kv/repo.h::kv.Repo.reset")  # ->
    assert at[(8, "Save")] == save  # .get()->
    assert at[(10, "Save")] == save  # a local std::unique_ptr<Repo>
    assert at[(11, "Save")] == save  # what Make() returns


def test_a_go_value_made_by_another_files_function_has_its_result_type() -> None:
    files: dict[str, str | bytes] = {
        "srv/server.go": "package srv\n\n"
        "type Server struct{}\n\n"
        "func (s *Server) Close() error { return nil }\n\n"
        "func New() *Server { return &Server{} }\n\n"
        "func Check() error { return nil }\n",
        "srv/use.go": "package srv\n\n"
        "func Run() {\n"
        "\tz := New()\n"
        "\tz.Close()\n"
        "\tq := Missing()\n"
        "\tq.Close()\n"
        "}\n",
    }
    got = {(k[1], k[2]): v for k, v in linked_calls(files, "go").items() if k[0] == "srv/use.go"}
    # New() is declared in server.go: z is what it returns, a *Server
    assert got[(5, "Close")] == ("bound", "srv/server.go::Server.Close")
    assert got[(7, "Close")][0] == "candidate"  # no such function in the package
    _symbols, edges = rows_of(files, "go")
    facts = {(e["source"], e["target_qualname"]) for e in edges if e["kind"] == "value"}
    assert facts == {("New()", "Server")}  # `error` is no type of the package
