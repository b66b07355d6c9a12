"""Which edits of a build manifest change what the index reads (a version
bump or a dependency pin does not; a package root does)."""

from __future__ import annotations

import pytest

from freshindex.indexer.manifests import resolution_changed

PYPROJECT = b'[project]\nname = "shop"\nversion = "1.0"\ndependencies = ["a==1"]\n'


@pytest.mark.parametrize(
    ("path", "old", "new", "changed"),
    [
        ("pyproject.toml", PYPROJECT, PYPROJECT.replace(b"1.0", b"1.1"), False),
        ("pyproject.toml", PYPROJECT, PYPROJECT.replace(b"a==1", b"a==2"), False),
        ("pyproject.toml", PYPROJECT, PYPROJECT + b"[tool.ruff]\nline-length = 90\n", False),
        ("pyproject.toml", PYPROJECT, PYPROJECT.replace(b'"shop"', b'"store"'), True),
        (
            "pkg/pyproject.toml",
            PYPROJECT,
            PYPROJECT + b'[tool.setuptools.package-dir]\n"" = "src"\n',
            True,
        ),
        ("pyproject.toml", PYPROJECT, b"[project\n", True),  # unreadable: counts
        ("package.json", b'{"name": "x", "version": "1"}', b'{"name": "x", "version": "2"}', False),
        ("package.json", b'{"name": "x", "main": "a.js"}', b'{"name": "x", "main": "b.js"}', True),
        # the source entry is what a workspace import resolves to first
        ("package.json", b'{"name": "x"}', b'{"name": "x", "source": "src/x.ts"}', True),
        ("jsconfig.json", b"{}", b'{"compilerOptions": {"baseUrl": "src"}}', True),
        # hostile: nested past the parser's depth, and unclosed comments, read
        # in linear time; unreadable counts as changed
        ("package.json", b"{}", b"[" * 100_000 + b"]" * 100_000, True),
        ("tsconfig.json", b"{}", b"/*" * 300_000, True),
        (
            "tsconfig.json",
            b'{"compilerOptions": {"strict": true}}',
            b'{\n  // aliases\n  "compilerOptions": {"strict": false,},\n}',
            False,
        ),
        (
            "web/tsconfig.json",
            b'{"compilerOptions": {"paths": {}}}',
            b'{"compilerOptions": {"paths": {"@/*": ["src/*"]}}}',
            True,
        ),
        ("go.mod", b"module x\n\nrequire a v1\n", b"module x\n\nrequire a v2\n", False),
        ("go.mod", b"module x\n", b"module y\n", True),
        ("go.mod", b"module x\n", b"module x\nreplace (\n  a => ../a\n)\n", True),
        (
            "Cargo.toml",
            b'[package]\nname = "c"\nversion = "1.0.0"\n',
            b'[package]\nname = "c"\nversion = "2.0.0"\n',
            False,
        ),
        ("setup.cfg", b"[metadata]\nversion = 1\n", b"[metadata]\nversion = 2\n", False),
        ("setup.cfg", b"[options]\npackages = a\n", b"[options]\npackages = b\n", True),
        ("package-lock.json", b"{}", b'{"lockfileVersion": 3}', False),
        ("poetry.lock", b"a", b"b", False),
        ("pom.xml", b"<a/>", b"<b/>", True),  # not understood: the whole file counts
        ("pyproject.toml", None, PYPROJECT, True),  # a new package root
        ("pyproject.toml", PYPROJECT, None, True),
    ],
)
def test_what_counts(path: str, old: bytes | None, new: bytes | None, changed: bool) -> None:
    assert resolution_changed(path, old, new) is changed
