"""Shard deltas: an update keeps a touched shard's base and writes only a delta.

The acceptance suite (tests/acceptance) shows updates equal full builds; this
file shows the layout they do it with, and that validation refuses a delta
that does not add up.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.dataset as ds
import pytest

from freshindex.catalog.layout import read_manifest, read_pointer
from freshindex.catalog.manifest import TableEntry
from freshindex.catalog.reader import IndexVersion
from freshindex.cli import main
from freshindex.indexer.shard import rows_to_table
from freshindex.storage import open_store
from freshindex.storage.base import sha256_hex
from freshindex.tasks.tables import encode_parquet
from freshindex.tasks.update import inherited_tables, plan_update, update_one_shard
from freshindex.tasks.validate import ValidationReport, validate_tables
from tests.repos import SAMPLE_FILES, commit_all, make_repo, write_files

pytestmark = pytest.mark.slow


@pytest.fixture
def edited(prefect_api: str, tmp_path: Path) -> tuple[Path, str]:
    """A repository built into a store, then one file edited and committed."""
    repo = make_repo(tmp_path / "repo", SAMPLE_FILES)
    store = (tmp_path / "store").as_uri()
    argv = ["--repo", str(repo), "--store", store, "build", "--runner", "threads"]
    assert main([*argv, "--shards", "4"]) == 0
    p = repo / "app" / "service.py"
    write_files(repo, {"app/service.py": p.read_text() + "\n\ndef added():\n    return 1\n"})
    commit_all(repo, "edit")
    return repo, store


def _staged(repo: Path, store: str) -> tuple[object, list[TableEntry]]:
    plan = plan_update.fn(str(repo), store)
    seq = int(plan.batch["seq"])
    tables = inherited_tables(plan)
    for sb in plan.batches:
        tables += update_one_shard(plan, sb, seq)
    return plan, tables


def _validate(store: str, plan: object, tables: list[TableEntry]) -> ValidationReport:
    job = plan.build.job  # type: ignore[attr-defined]
    return validate_tables(
        open_store(store),
        tables,
        job.shards,
        plan.build.entries,  # type: ignore[attr-defined]
        trusted=plan.trusted,  # type: ignore[attr-defined]
    )


def test_an_edit_writes_a_delta_and_keeps_the_base(edited: tuple[Path, str]) -> None:
    repo, store = edited
    s = open_store(store)
    parent = read_manifest(s, read_pointer(s).pointer.version)  # type: ignore[union-attr]
    assert main(["--repo", str(repo), "--store", store, "update"]) == 0
    child = read_manifest(s, read_pointer(s).pointer.version)  # type: ignore[union-attr]
    (shard,) = child.batch["shardsRewritten"]  # type: ignore[index]
    old = {t.table: t for t in parent.tables if t.shard == shard}
    new = {t.table: t for t in child.tables if t.shard == shard}
    for name in ("documents", "symbols", "edges", "refs"):
        assert new[name] == old[name]  # the base file itself, not a copy
    for name in ("delta-documents", "delta-symbols", "delta-edges", "delta-refs", "masks"):
        assert new[name].key.startswith(f"versions/{child.versionId}/")
    assert new["masks"].rows == 1 and new["delta-documents"].rows == 1
    assert new["masks"].stats["documents"] == 1
    assert main(["--repo", str(repo), "--store", store, "verify"]) == 0


def test_validation_accepts_a_sound_delta(edited: tuple[Path, str]) -> None:
    plan, tables = _staged(*edited)
    assert any(t.table == "masks" for t in tables)
    report = _validate(edited[1], plan, tables)
    assert report.ok, report.reason


def test_validation_rejects_a_partial_delta(edited: tuple[Path, str]) -> None:
    plan, tables = _staged(*edited)
    tables = [t for t in tables if t.table != "delta-refs"]
    report = _validate(edited[1], plan, tables)
    assert not report.ok and "partial delta: no delta-refs" in (report.reason or "")


def test_validation_rejects_masks_with_wrong_counts(edited: tuple[Path, str]) -> None:
    plan, tables = _staged(*edited)
    tables = [
        t.model_copy(update={"stats": {**t.stats, "symbols": t.stats.get("symbols", 0) + 1}})
        if t.table == "masks"
        else t
        for t in tables
    ]
    report = _validate(edited[1], plan, tables)
    assert not report.ok and "masks declare other counts" in (report.reason or "")


def test_validation_rejects_a_path_live_in_base_and_delta(edited: tuple[Path, str]) -> None:
    """A delta whose masks forget the base path it replaces would show both."""
    plan, tables = _staged(*edited)
    s = open_store(edited[1])
    masks = next(t for t in tables if t.table == "masks")
    empty = rows_to_table("masks", [])
    data = encode_parquet(empty)
    key = masks.key.replace("masks-", "masks-empty-")
    s.put(key, data)
    forged = masks.model_copy(
        update={"key": key, "rows": 0, "bytes": len(data), "sha256": sha256_hex(data), "stats": {}}
    )
    tables = [forged if t is masks else t for t in tables]
    report = _validate(edited[1], plan, tables)
    assert not report.ok and "live in both its base and its delta" in (report.reason or "")


def test_masks_hide_base_rows_from_every_reader(edited: tuple[Path, str]) -> None:
    """defs, refs and dump read the edited file's rows once: from the delta."""
    repo, store = edited
    assert main(["--repo", str(repo), "--store", store, "update"]) == 0
    v = IndexVersion.current(open_store(store))
    docs = v.read("documents")
    assert sorted(docs["path"].to_pylist()) == sorted(set(docs["path"].to_pylist()))
    rows = v.read("symbols", where=ds.field("path") == "app/service.py").to_pylist()
    keys = [(r["qualname"], r["start_line"]) for r in rows]
    assert len(keys) == len(set(keys))
    assert [q for q, _ in keys].count("added") == 1
    refs = v.read("refs", where=ds.field("path") == "app/service.py").to_pylist()
    spots = [(r["target"], r["start_line"], r["start_col"]) for r in refs]
    assert refs and len(spots) == len(set(spots))


def test_gc_keeps_the_base_a_delta_stands_on(
    edited: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The build's version is collected; the base files the update's delta
    shards inherit from it are not, and the current version still verifies."""
    repo, store = edited
    argv = ["--repo", str(repo), "--store", store]
    assert main([*argv, "update"]) == 0
    s = open_store(store)
    current = read_manifest(s, read_pointer(s).pointer.version)  # type: ignore[union-attr]
    built = current.parentVersion
    inherited = [t.key for t in current.tables if f"/{built}/" in t.key]
    assert any(t.table == "masks" for t in current.tables) and inherited
    capsys.readouterr()
    assert main([*argv, "--json", "gc", "--keep", "1"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["deletedVersions"] == [built]
    assert report["retainedKeys"] == len(inherited)
    assert all(s.exists(k) for k in inherited)
    assert main([*argv, "verify"]) == 0
    assert main([*argv, "--json", "defs", "added"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["results"]


def test_a_noop_update_starts_no_prefect_api(tmp_path: Path, prefect_api: str) -> None:
    """Nothing to do is decided before Prefect or Dask start: the command
    ends with the reason, and no API is started for it (the environment has
    none to reuse)."""
    import json
    import os
    import subprocess

    from tests.conftest import BIN

    repo = make_repo(tmp_path / "repo", {"a.py": "def a():\n    return 1\n"})
    store = (tmp_path / "store").as_uri()
    cmd = [str(BIN / "freshindex"), "--repo", str(repo), "--store", store, "--json"]
    built = subprocess.run([*cmd, "build", "--runner", "threads", "--shards", "2"],
                           capture_output=True, text=True, timeout=300)  # fmt: skip
    assert built.returncode == 0, built.stderr
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
    done = subprocess.run([*cmd, "update"], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()  # fmt: skip
    assert doc["outcome"] == "noop" and doc["prefectApi"] is None
    assert doc["reason"].startswith(f"nothing to do: {head} is already indexed")
    assert "starting one local Prefect API" not in done.stderr
