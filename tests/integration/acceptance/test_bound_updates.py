"""Acceptance: bindings after an update equal a full build's.

A binding depends on other files: the definition it names, the ``__init__``
that re-exports it, the base class a method is inherited from. Each scenario
changes one of those without touching the referring file, updates, and
compares `dump` (edges linked: ``binding``, ``via``) with a from-scratch
build, then checks what `refs` says.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.acceptance.test_update_scenarios import (
    assert_same_as_full,
    full_build,
    ok,
    update,
)
from tests.repos import commit_all, git, make_repo, write_files

pytestmark = pytest.mark.slow

FILES: dict[str, str | bytes] = {
    "core/__init__.py": "from core.models import Model, persist\n",
    "core/models.py": "class Model:\n    def save(self):\n        return persist(self)\n\n\ndef persist(obj):\n    return obj\n",
    "api/views.py": "from core import Model\n\n\ndef view():\n    return Model().save()\n",
    "lib/__init__.py": "from lib.base import Base\n",
    "lib/base.py": "class Base:\n    def ping(self):\n        return 1\n",
    "lib/child.py": "from lib import Base\n\n\nclass Child(Base):\n    def run(self):\n        return self.ping()\n",
    "svc/clients.py": "class Http:\n    def send(self):\n        return 1\n\n\nclass Grpc:\n    def send(self):\n        return 2\n",
    "svc/factory.py": "from svc.clients import Http\n\n\ndef make():\n    return Http()\n",
    "svc/app.py": "from svc.factory import make\n\n\nclass App:\n    def __init__(self):\n        self.client = make()\n\n    def run(self):\n        return self.client.send()\n",
}


@pytest.fixture
def indexed(prefect_api: str, tmp_path: Path) -> tuple[Path, str]:
    repo = make_repo(tmp_path / "repo", FILES)
    store = (tmp_path / "store").as_uri()
    full_build(repo, store)
    return repo, store


def refs(repo: Path, store: str, name: str) -> dict:  # type: ignore[type-arg]
    return json.loads(ok("--repo", str(repo), "--store", store, "--json", "refs", name))  # type: ignore[no-any-return]


def places(rows: list[dict]) -> list[tuple[str, int]]:  # type: ignore[type-arg]
    return [(r["path"], r["startLine"]) for r in rows]


def test_renamed_method_with_callers_in_another_package(
    indexed: tuple[Path, str], tmp_path: Path
) -> None:
    repo, store = indexed
    assert places(refs(repo, store, "Model.save")["bound"]) == [("api/views.py", 5)]
    models = repo / "core/models.py"
    models.write_text(models.read_text().replace("def save", "def store"))
    commit_all(repo, "rename Model.save -> Model.store; callers not yet")
    doc = update(repo, store)
    assert doc["batch"]["modified"] == ["core/models.py"]
    assert_same_as_full(repo, store, tmp_path)
    # the caller's file was not re-parsed, and its call is no longer bound
    assert refs(repo, store, "Model.store")["bound"] == []
    assert ("api/views.py", 5) in places(refs(repo, store, "save")["candidates"])
    views = repo / "api/views.py"
    views.write_text(views.read_text().replace(".save()", ".store()"))
    commit_all(repo, "callers follow")
    update(repo, store)
    assert_same_as_full(repo, store, tmp_path)
    assert places(refs(repo, store, "Model.store")["bound"]) == [("api/views.py", 5)]


def test_reexport_removed_from_init(indexed: tuple[Path, str], tmp_path: Path) -> None:
    repo, store = indexed
    write_files(repo, {"core/__init__.py": "from core.models import persist\n"})
    commit_all(repo, "core no longer re-exports Model")
    update(repo, store)
    assert_same_as_full(repo, store, tmp_path)
    doc = refs(repo, store, "Model.save")
    assert doc["bound"] == []
    assert ("api/views.py", 5) in places(doc["candidates"])


def test_base_class_moved(indexed: tuple[Path, str], tmp_path: Path) -> None:
    repo, store = indexed
    assert places(refs(repo, store, "Base.ping")["bound"]) == [("lib/child.py", 6)]
    (repo / "lib/bases").mkdir()
    git(repo, "mv", "lib/base.py", "lib/bases/core.py")
    write_files(repo, {"lib/__init__.py": "from lib.bases.core import Base\n"})
    commit_all(repo, "move Base")
    doc = update(repo, store)
    assert "lib/child.py" not in doc["batch"]["modified"]
    assert_same_as_full(repo, store, tmp_path)
    bound = refs(repo, store, "Base.ping")
    assert [d["path"] for d in bound["definitions"]] == ["lib/bases/core.py"]
    assert places(bound["bound"]) == [("lib/child.py", 6)]


def test_factory_return_changed(indexed: tuple[Path, str], tmp_path: Path) -> None:
    """`self.client = make()` in one file, `make` returning another class in
    another: the call `self.client.send()` follows the factory while its own
    file is not parsed again."""
    repo, store = indexed
    assert places(refs(repo, store, "Http.send")["bound"]) == [("svc/app.py", 9)]
    assert refs(repo, store, "Grpc.send")["bound"] == []
    factory = repo / "svc/factory.py"
    factory.write_text(factory.read_text().replace("Http", "Grpc"))
    commit_all(repo, "the factory makes gRPC clients")
    doc = update(repo, store)
    assert doc["batch"]["modified"] == ["svc/factory.py"]
    assert_same_as_full(repo, store, tmp_path)
    assert refs(repo, store, "Http.send")["bound"] == []
    moved = refs(repo, store, "Grpc.send")["bound"]
    assert places(moved) == [("svc/app.py", 9)]
    assert "return of make" in moved[0]["via"]


def test_conftest_added_nearer_a_test(indexed: tuple[Path, str], tmp_path: Path) -> None:
    """A test's ``client`` is the fixture of the nearest conftest.py that
    defines it; one added between them re-binds the test, whose own file
    did not change."""
    repo, store = indexed
    fixture = "import pytest\nfrom svc.clients import {0}\n\n\n@pytest.fixture\ndef client():\n    return {0}()\n"
    write_files(
        repo,
        {
            "tests/conftest.py": fixture.format("Http"),
            "tests/unit/test_app.py": "def test_send(client):\n    assert client.send()\n",
        },
    )
    commit_all(repo, "a test of the client")
    update(repo, store)
    assert_same_as_full(repo, store, tmp_path)
    assert ("tests/unit/test_app.py", 2) in places(refs(repo, store, "Http.send")["bound"])
    write_files(repo, {"tests/unit/conftest.py": fixture.format("Grpc")})
    commit_all(repo, "unit tests use gRPC")
    doc = update(repo, store)
    assert doc["batch"]["added"] == ["tests/unit/conftest.py"]
    assert_same_as_full(repo, store, tmp_path)
    assert ("tests/unit/test_app.py", 2) in places(refs(repo, store, "Grpc.send")["bound"])
    assert ("tests/unit/test_app.py", 2) not in places(refs(repo, store, "Http.send")["bound"])
