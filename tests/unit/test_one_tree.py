"""One package, one real tree: every module has one path, and the design
card's top-level names are links into the package, never the other way."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SIGNPOSTS = ("flows", "tasks", "indexer", "storage")


def _tracked() -> list[tuple[str, str]]:
    out = subprocess.run(
        ["git", "ls-files", "-s"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    rows = []
    for line in out.splitlines():
        meta, path = line.split("\t", 1)
        rows.append((meta.split()[0], path))
    return rows


def test_no_symlink_inside_the_package() -> None:
    links = [p for mode, p in _tracked() if mode == "120000" and p.startswith("freshindex/")]
    assert links == []
    assert [p for p in (ROOT / "freshindex").rglob("*") if p.is_symlink()] == []


def test_top_level_names_point_into_the_package() -> None:
    modes = dict((p, mode) for mode, p in _tracked())
    for name in SIGNPOSTS:
        assert modes.get(name) == "120000", f"{name} is not a link"
        assert (ROOT / name).resolve() == (ROOT / "freshindex" / name)
        assert (ROOT / "freshindex" / name / "__init__.py").is_file()


def test_a_module_over_400_lines_says_why() -> None:
    """One concept a file: a longer one says, at its top, why it stays one."""
    long = []
    for _mode, path in _tracked():
        if not path.endswith(".py") or (ROOT / path).is_symlink():
            continue
        text = (ROOT / path).read_text(encoding="utf-8")
        if text.count("\n") > 400 and "Over 400 lines" not in text[:2000]:
            long.append(path)
    assert long == []
