"""End to end: the real Prefect flow on a real Dask LocalCluster, on both backends."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from freshindex.catalog.layout import read_manifest, read_pointer
from freshindex.cli import main
from freshindex.storage import open_store
from tests.conftest import new_bucket
from tests.repos import EXPECTED_DEFS, EXPECTED_REFS, SAMPLE_FILES, make_repo

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", params=["file", "s3"])
def built(
    request: pytest.FixtureRequest, prefect_api: str, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, str, dict]:
    """One build per backend for the whole module (a build costs seconds)."""
    root = tmp_path_factory.mktemp("built")
    repo = make_repo(root / "repo", SAMPLE_FILES)
    if request.param == "file":
        store_uri = (root / "store").as_uri()
    else:
        store_uri = f"s3://{new_bucket(request.getfixturevalue('s3_server'))}/index"
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(
            [
                "--repo",
                str(repo),
                "--store",
                store_uri,
                "--json",
                "build",
                "--shards",
                "16",
                "--workers",
                "2",
            ]
        )
    assert code == 0, err.getvalue()
    assert "Traceback" not in err.getvalue()
    return repo, store_uri, json.loads(out.getvalue())


def test_build_publishes_a_complete_verified_version(built, run_cli) -> None:  # type: ignore[no-untyped-def]
    repo, store_uri, summary = built
    assert summary["outcome"] == "published"
    assert summary["prefectApi"].startswith("http://127.0.0.1:")
    store = open_store(store_uri)
    pointer = read_pointer(store).pointer
    assert pointer is not None and pointer.version == summary["version"]
    m = read_manifest(store, pointer.version)
    assert m.state == "complete" and m.shards == m.completedShards == 16
    assert m.counts.documents == 13  # every tree entry, parsed or skipped
    assert m.counts.skippedDocuments == {"binary": 1, "secret": 1, "unsupported": 1}
    assert m.sourceCommit == summary["sourceCommit"]
    assert {"python", "go", "rust", "java", "typescript", "tsx", "javascript"} <= set(m.grammars)
    code, out, _ = run_cli("--repo", str(repo), "--store", store_uri, "--json", "verify")
    assert code == 0 and json.loads(out)["ok"] is True
    code, out, _ = run_cli("--repo", str(repo), "--store", store_uri, "--json", "versions")
    rows = json.loads(out)["versions"]
    assert rows[0]["current"] and rows[0]["state"] == "complete" and rows[0]["seq"] == 1
    # unsigned here (no FRESHINDEX_SIGNING_KEY): both columns say so
    assert rows[0]["record"]["signed"] is False and rows[0]["record"]["verified"] is False
    code, out, _ = run_cli("--repo", str(repo), "--store", store_uri, "versions")
    assert "signed  verified" in out.splitlines()[0]


@pytest.mark.parametrize(("name", "path", "line", "kind"), EXPECTED_DEFS)
def test_defs_in_every_language(built, run_cli, name: str, path: str, line: int, kind: str) -> None:  # type: ignore[no-untyped-def]
    repo, store_uri, _ = built
    code, out, _ = run_cli("--repo", str(repo), "--store", store_uri, "--json", "defs", name)
    assert code == 0
    doc = json.loads(out)
    assert doc["freshness"] == "exact" and doc["relation"] == "equal"
    hits = [(r["path"], r["startLine"], r["kind"]) for r in doc["results"]]
    assert (path, line, kind) in hits
    assert all(r["origin"] == "index" for r in doc["results"])


@pytest.mark.parametrize(("name", "path", "line", "resolved"), EXPECTED_REFS)
def test_refs_in_every_language(
    built, run_cli, name: str, path: str, line: int, resolved: str | None
) -> None:  # type: ignore[no-untyped-def]
    repo, store_uri, _ = built
    code, out, _ = run_cli("--repo", str(repo), "--store", store_uri, "--json", "refs", name)
    assert code == 0
    results = json.loads(out)["results"]
    assert (path, line, resolved) in [
        (r["path"], r["startLine"], r["resolvedPath"]) for r in results
    ]


def test_qualified_defs(built, run_cli) -> None:  # type: ignore[no-untyped-def]
    repo, store_uri, _ = built
    code, out, _ = run_cli(
        "--repo", str(repo), "--store", store_uri, "--json", "defs", "Model.save"
    )
    assert code == 0
    assert [(r["path"], r["qualname"]) for r in json.loads(out)["results"]] == [
        ("app/models.py", "Model.save")
    ]


def test_secrets_are_never_indexed(built, run_cli) -> None:  # type: ignore[no-untyped-def]
    repo, store_uri, _ = built
    code, out, _ = run_cli(
        "--repo", str(repo), "--store", store_uri, "dump", "--table", "documents"
    )
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()[1:]]
    env = next(r for r in rows if r["path"] == ".env")
    assert env["status"] == "skipped" and env["reason"] == "secret"


def test_dump_is_golden_and_parquet_opens_with_plain_tools(
    built, run_cli, golden, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    repo, store_uri, _ = built
    for table in ("symbols", "edges", "documents"):
        code, out, _ = run_cli(
            "--repo", str(repo), "--store", store_uri, "dump", "--table", table, "--no-ids"
        )
        assert code == 0
        header, *rows = out.splitlines()
        assert json.loads(header)["table"] == table
        # blob OIDs differ by nothing but content, so the golden is stable
        golden(f"sample/{table}.jsonl", "\n".join(rows) + "\n")

    store = open_store(store_uri)
    m = read_manifest(store, read_pointer(store).pointer.version)  # type: ignore[union-attr]
    sym = next(t for t in m.tables if t.table == "symbols" and t.rows)
    data = store.get(sym.key).data
    table = pq.read_table(io.BytesIO(data))
    assert table.num_rows == sym.rows
    assert pq.ParquetFile(io.BytesIO(data)).metadata.row_group(0).column(0).compression == "ZSTD"

    import duckdb

    local_path = store.local_path(sym.key)
    if local_path is None:  # S3: DuckDB reads a downloaded copy
        local_path = str(tmp_path / "symbols.parquet")
        Path(local_path).write_bytes(data)
    local = Path(local_path)
    n = duckdb.connect().execute(f"select count(*) from read_parquet('{local}')").fetchall()
    assert n == [(sym.rows,)]
