"""The in-memory index of a loaded version (catalog/memory.py) answers
exactly what Parquet answers, deltas and masks included."""

from __future__ import annotations

from pathlib import Path

import pyarrow.dataset as ds
import pytest

from freshindex.catalog.reader import IndexVersion
from freshindex.cli import main
from freshindex.storage import open_store
from tests.repos import SAMPLE_FILES, build_template, commit_all, copy_built


@pytest.fixture(scope="module")
def template(prefect_api: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return build_template(tmp_path_factory.mktemp("memory"), SAMPLE_FILES)


def rows(t) -> list[tuple]:  # type: ignore[no-untyped-def]
    return sorted(tuple(r.values()) for r in t.to_pylist())


def test_memory_lookups_equal_parquet_lookups_after_an_update(
    template: tuple[Path, Path], tmp_path: Path
) -> None:
    repo, store = copy_built(template, tmp_path)
    models = repo / "app/models.py"
    models.write_text(models.read_text() + "\n\ndef audit(obj):\n    return persist(obj)\n")
    (repo / "web/dom.js").unlink()
    commit_all(repo, "edit one file, delete another")
    assert main(["--repo", str(repo), "--store", store, "update"]) == 0
    on_disk = IndexVersion.current(open_store(store))
    assert any(t.table == "masks" for t in on_disk.manifest.tables)  # a delta is live
    loaded = IndexVersion.current(open_store(store)).in_memory()
    symbols = on_disk.read("symbols").to_pylist()
    edges = on_disk.read("edges").to_pylist()
    for table, column, values in (
        ("symbols", "name", {s["name"] for s in symbols} | {"missing"}),
        ("symbols", "path", {s["path"] for s in symbols} | {"web/dom.js"}),
        ("symbols", "symbol_id", {s["symbol_id"] for s in symbols}),
        ("edges", "target", {e["target"] for e in edges}),
        ("edges", "path", {e["path"] for e in edges}),
        ("summaries", "path", {s["path"] for s in symbols}),
    ):
        for value in values:
            assert rows(loaded.lookup(table, column, value)) == rows(
                on_disk.lookup(table, column, value)
            ), (table, column, value)
    assert loaded.lookup("symbols", "path", "web/dom.js").num_rows == 0  # deleted: masked
    paths = sorted({s["path"] for s in symbols})
    assert loaded.blobs(paths) == on_disk.blobs(paths)
    where = ds.field("kind") == "import"
    assert rows(loaded.select("edges", where)) == rows(on_disk.select("edges", where))


def test_a_reload_after_an_update_reads_only_the_rewritten_shards(
    template: tuple[Path, Path], tmp_path: Path
) -> None:
    repo, store = copy_built(template, tmp_path)
    before = IndexVersion.current(open_store(store)).in_memory()
    models = repo / "app/models.py"
    models.write_text(models.read_text() + "\n\ndef audit(obj):\n    return persist(obj)\n")
    commit_all(repo, "edit one file")
    assert main(["--repo", str(repo), "--store", store, "update"]) == 0
    after = IndexVersion.current(open_store(store)).in_memory(before)
    assert after.memory is not None and before.memory is not None
    shards = len({t.shard for t in after.manifest.tables})
    # one file changed: its shard is read again, every other one is the same object
    assert after.memory.reused == shards - 1
    assert rows(after.lookup("symbols", "name", "audit")) == rows(
        IndexVersion.current(open_store(store)).lookup("symbols", "name", "audit")
    )
    assert before.lookup("symbols", "name", "audit").num_rows == 0  # the old one is untouched
