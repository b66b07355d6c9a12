"""Sourcegraph's scip-python as a peer in the references benchmark.

Installed from the npm registry into ~/.cache/freshindex/scip-python (never
into the repository), run on the benchmark's repository, and its index read
here. SCIP is protobuf; the four fields read (documents, their paths and
occurrences, an occurrence's range, symbol and roles) are decoded from the
wire format directly, so the benchmark needs no generated bindings:
https://github.com/sourcegraph/scip/blob/main/scip.proto
"""

from __future__ import annotations

import subprocess
import time
from collections import defaultdict
from pathlib import Path

VERSION = "0.6.6"
HOME = Path.home() / ".cache" / "freshindex" / "scip-python"
DEFINITION = 0x1  # SymbolRole.Definition

Site = tuple[str, int, int]  # path, 1-based line, 0-based column


def install() -> Path:
    binary = HOME / "node_modules" / ".bin" / "scip-python"
    if not binary.exists():
        HOME.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", f"@sourcegraph/scip-python@{VERSION}"],
            cwd=HOME,
            check=True,
            capture_output=True,
        )
    return binary


def index(repo: Path, out: Path, timeout: float = 3600) -> float:
    """Run scip-python on ``repo``; the seconds it took."""
    binary = install()
    t0 = time.perf_counter()
    argv = [str(binary), "index", "--project-name", "bench", "--project-version", "1"]
    subprocess.run(
        [*argv, "--output", str(out), "."],
        cwd=repo,
        check=True,
        capture_output=True,
        timeout=timeout,
    )
    return time.perf_counter() - t0


class Index:
    """Definitions and references by symbol, from an index.scip file."""

    def __init__(self, path: Path):
        self.defined_at: dict[Site, str] = {}
        self.refs: dict[str, set[Site]] = defaultdict(set)
        for field, doc in _fields(path.read_bytes()):
            if field == 2:
                self._document(doc)

    def _document(self, data: bytes) -> None:
        rel = ""
        occurrences = []
        for field, value in _fields(data):
            if field == 1:
                rel = value.decode()
            elif field == 2:
                occurrences.append(value)
        for occ in occurrences:
            rng: list[int] = []
            symbol, roles = "", 0
            for field, value in _fields(occ):
                if field == 1:
                    rng = _packed(value) if isinstance(value, bytes) else [value]
                elif field == 2:
                    symbol = value.decode()
                elif field == 3:
                    roles = value
            if not symbol or len(rng) < 3 or symbol.startswith("local "):
                continue
            site = (rel, rng[0] + 1, rng[1])
            if roles & DEFINITION:
                self.defined_at[site] = symbol
            else:
                self.refs[symbol].add(site)

    def references(self, site: Site) -> set[Site] | None:
        """The references of the definition whose name is at ``site``; None
        when scip-python has no definition there."""
        symbol = self.defined_at.get(site)
        return None if symbol is None else set(self.refs.get(symbol, ()))


def _varint(data: bytes, i: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        b = data[i]
        i += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, i
        shift += 7


def _fields(data: bytes):  # type: ignore[no-untyped-def]
    """(field number, value) of one message: ints for varints, bytes for
    length-delimited fields; fixed-width fields are skipped."""
    i = 0
    while i < len(data):
        key, i = _varint(data, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(data, i)
            yield field, value
        elif wire == 2:
            n, i = _varint(data, i)
            yield field, data[i : i + n]
            i += n
        elif wire == 1:
            i += 8
        elif wire == 5:
            i += 4
        else:
            raise ValueError(f"unknown wire type {wire}")


def _packed(data: bytes) -> list[int]:
    out, i = [], 0
    while i < len(data):
        v, i = _varint(data, i)
        out.append(v)
    return out
