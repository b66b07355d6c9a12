"""The installed versions are the ones constraints.txt pins, so a mismatch is
named here instead of discovered as a behaviour change (the workarounds in
flows/ depend on Prefect's and Dask's exact behaviour)."""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

CONSTRAINTS = Path(__file__).resolve().parents[2] / "constraints.txt"
# the ones whose behaviour freshindex leans on; every pin is compared below
KEY = (
    "prefect",
    "prefect-dask",
    "dask",
    "distributed",
    "pyarrow",
    "pygit2",
    "tree-sitter",
    "boto3",
)


def pins() -> dict[str, str]:
    out = {}
    for line in CONSTRAINTS.read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9_.\-]+)==([^\s;#]+)", line)
        if m:
            out[m.group(1).lower().replace("_", "-")] = m.group(2)
    return out


def test_key_packages_are_pinned() -> None:
    assert set(KEY) <= set(pins()), "constraints.txt lost a key pin"


def test_installed_versions_match_the_pins() -> None:
    wrong = []
    for name, pinned in sorted(pins().items()):
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue  # an optional extra this venv does not have
        if installed != pinned:
            wrong.append(f"{name} {installed} installed, {pinned} pinned")
    assert not wrong, "; ".join(wrong)
