"""Updates in a repository of C++, PHP, Kotlin, C#, Ruby and C: each equals a
from-scratch build of the same tree (the reference article's acceptance)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.acceptance.test_update_scenarios import (
    assert_same_as_full,
    full_build,
    update,
)
from tests.repos import commit_all, make_repo, write_files

pytestmark = pytest.mark.slow

MIXED: dict[str, str | bytes] = {
    "native/include/store.h": "#pragma once\nnamespace store {\nclass Store {\npublic:\n  void put(int v);\n};\n}\n",
    "native/src/store.cpp": '#include "../include/store.h"\nnamespace store {\nvoid Store::put(int v) { flush(v); }\n}\n',
    "native/src/main.cpp": '#include "../include/store.h"\nint main() { store::Store s; s.put(1); return 0; }\n',
    "native/c/util.c": '#include "util.h"\nint twice(int x) { return helper(x) * 2; }\n',
    "web/src/Models/User.php": "<?php\nnamespace App\\Models;\n\nclass User\n{\n    public function name(): string { return 'u'; }\n}\n",
    "web/src/Services/Users.php": "<?php\nnamespace App\\Services;\n\nuse App\\Models\\User;\n\nclass Users\n{\n    public function first(): User { return new User(); }\n}\n",
    "android/app/Repo.kt": "package com.example.app\n\nclass Repo {\n    fun load(): Int = compute()\n}\n",
    "android/app/Main.kt": "package com.example.app\n\nimport com.example.app.Repo\n\nfun main() = Repo().load()\n",
    "dotnet/Models/Order.cs": "namespace Shop.Models;\n\npublic class Order\n{\n    public int Total() => 0;\n}\n",
    "ruby/lib/cart.rb": 'require_relative "item"\n\nclass Cart\n  def add(item)\n    Item.new(item)\n  end\nend\n',
    "ruby/lib/item.rb": "class Item\n  def initialize(x)\n    @x = x\n  end\nend\n",
}


@pytest.fixture
def mixed(prefect_api: str, tmp_path: Path) -> tuple[Path, str]:
    repo = make_repo(tmp_path / "repo", MIXED)
    store = (tmp_path / "store").as_uri()
    full_build(repo, store)
    return repo, store


def test_rename_across_a_cpp_header_and_its_source(mixed: tuple[Path, str], tmp_path: Path) -> None:
    repo, store = mixed
    for rel in ("native/include/store.h", "native/src/store.cpp", "native/src/main.cpp"):
        p = repo / rel
        p.write_text(p.read_text().replace("put", "insert"))
    commit_all(repo, "put -> insert")
    assert update(repo, store)["mode"] == "incremental"
    assert_same_as_full(repo, store, tmp_path)


def test_deleted_php_class(mixed: tuple[Path, str], tmp_path: Path) -> None:
    repo, store = mixed
    (repo / "web/src/Models/User.php").unlink()
    commit_all(repo, "drop User")
    assert update(repo, store)["mode"] == "incremental"
    assert_same_as_full(repo, store, tmp_path)


def test_moved_kotlin_file_and_edits_elsewhere(mixed: tuple[Path, str], tmp_path: Path) -> None:
    repo, store = mixed
    (repo / "android/core").mkdir()
    (repo / "android/app/Repo.kt").rename(repo / "android/core/Repo.kt")
    write_files(repo, {"ruby/lib/cart.rb": MIXED["ruby/lib/cart.rb"].replace("add", "push")})  # type: ignore[union-attr]
    commit_all(repo, "move Repo.kt, rename Cart#add")
    assert update(repo, store)["mode"] == "incremental"
    assert_same_as_full(repo, store, tmp_path)
