"""The import contracts in pyproject.toml hold, and each one catches the
import it exists to forbid: a deliberately wrong import breaks it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT = Path(sys.executable).with_name("lint-imports")

# (module that gets the wrong import, what it imports, the contract it breaks)
WRONG = [
    ("freshindex/catalog/reader.py", "freshindex.query.answer", "Layers, top to bottom"),
    ("freshindex/tasks/plan.py", "freshindex.query.lookup", "The build wing never imports"),
    ("freshindex/flows/progress.py", "freshindex.service.warm", "The build wing never imports"),
    ("freshindex/query/lookup.py", "prefect", "Reading an index needs no workflow engine"),
    ("freshindex/catalog/manifest.py", "distributed", "Reading an index needs no workflow engine"),
    ("freshindex/indexer/shard.py", "pygit2", "The indexer is pure"),
]


def _lint(tree: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run(
        [str(LINT), "--no-cache"], cwd=tree, env=env, capture_output=True, text=True, timeout=120
    )


def test_contracts_are_kept() -> None:
    done = _lint(ROOT)
    assert done.returncode == 0, done.stdout
    assert "broken" in done.stdout and " 0 broken" in done.stdout


@pytest.mark.parametrize(("module", "imported", "contract"), WRONG)
def test_a_wrong_import_breaks_its_contract(
    tmp_path: Path, module: str, imported: str, contract: str
) -> None:
    shutil.copytree(
        ROOT / "freshindex", tmp_path / "freshindex", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    with (tmp_path / module).open("a") as f:
        f.write(f"\nimport {imported}  # noqa\n")
    done = _lint(tmp_path)
    assert done.returncode != 0
    broken = [line for line in done.stdout.splitlines() if line.endswith("BROKEN")]
    assert any(line.startswith(contract) for line in broken), done.stdout
