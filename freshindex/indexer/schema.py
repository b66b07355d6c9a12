"""Arrow schemas of the four tables every shard writes, and the closed sets of words in them.

Tables (one Parquet file each per shard, zstd):
- ``documents``: one row per tree entry of the shard, parsed or skipped (with the reason).
- ``symbols``: definitions.
- ``edges``: references (calls, imports, inheritance, type uses, uses as values)
  in source order, each with its binding (``Binding``).
- ``refs``: the reverse index: the same references keyed and sorted by target name,
  so ``refs NAME`` reads row groups by statistics. Validation checks it equals
  ``edges`` row for row.
- ``summaries``: per definition, its signature, first doc paragraph,
  decorators, span and size (indexer/summary.py), keyed by (blob, qualname).
- ``tombstones``: paths removed by an incremental batch (empty in a full build).

An incremental update may leave a shard's four tables (its *base*) as they
are and write, next to them, a *delta*: ``delta-documents``, ``delta-symbols``,
``delta-edges`` and ``delta-refs`` (same schemas) with the current rows of
the paths changed since the base was written, and ``masks``: the base paths
whose rows no longer count. A shard's rows are its base rows whose path is
not masked, plus its delta rows (catalog/reader.py). When the delta grows
past a fraction of the base, the next update folds it back into a new base.

Lines are 1-based, columns 0-based byte offsets (docs/contract.md).
"""

from __future__ import annotations

import enum
from typing import NamedTuple

import pyarrow as pa


class DocStatus(enum.StrEnum):
    PARSED = "parsed"
    SKIPPED = "skipped"


class SkipReason(enum.StrEnum):
    """Why a tree entry has no rows. Modelled on zoekt's SkipReason: not an error."""

    BINARY = "binary"
    TOO_LARGE = "too-large"
    UNSUPPORTED = "unsupported"
    GENERATED = "generated"
    EXCLUDED = "excluded"
    SECRET = "secret"
    SYMLINK = "symlink"
    SUBMODULE = "submodule"
    INVALID_PATH = "invalid-path"
    PARSE_BUDGET = "parse-budget"
    # the commit names a blob the object database does not hold: a partial
    # clone's (`--filter=blob:limit=...`) or a snapshot's large file
    MISSING = "missing"


class EdgeKind(enum.StrEnum):
    CALL = "call"
    IMPORT = "import"
    INHERIT = "inherit"
    TYPE = "type"
    # a name used as a value: passed, assigned, isinstance, except, annotation
    USE = "use"
    # not a reference: what a holder (``source``) may hold, as a chain the
    # linker follows (indexer/chains.py); no answer lists these rows
    VALUE = "value"
    # not a reference: a C or C++ prototype, ``target`` declared in this file
    # (indexer/bind_c.py); the linker reads it to bind calls that see it
    DECLARE = "declare"


# rows the linker reads that are not references: no answer lists them
FACTS = frozenset({EdgeKind.VALUE, EdgeKind.DECLARE})


class Binding(enum.StrEnum):
    """What the code's own rules say an edge names (indexer/bind_python.py).

    Stored, it is the claim one file can make: ``bound`` names a definition
    site (``resolved_path``, ``target_qualname``) that the reader then looks
    up, following re-exports and base classes (freshindex/query/link.py); a
    claim whose definition is not there is served as ``candidate``."""

    BOUND = "bound"  # resolved to one definition by the language's rules
    CANDIDATE = "candidate"  # name-matched, not provable
    EXTERNAL = "external"  # resolved outside the repository (stdlib, a dependency)


DOCUMENTS = pa.schema(
    [
        ("path", pa.string()),
        ("blob", pa.string()),
        ("mode", pa.int32()),
        ("language", pa.string()),
        ("bytes", pa.int64()),
        ("lines", pa.int64()),
        ("status", pa.string()),
        ("reason", pa.string()),
        ("symbols", pa.int32()),
        ("edges", pa.int32()),
    ]
)

_RANGE = [
    ("start_line", pa.int32()),
    ("start_col", pa.int32()),
    ("end_line", pa.int32()),
    ("end_col", pa.int32()),
]

SYMBOLS = pa.schema(
    [
        ("symbol_id", pa.string()),
        ("path", pa.string()),
        ("name", pa.string()),
        ("container", pa.string()),
        ("qualname", pa.string()),
        ("kind", pa.string()),
        ("language", pa.string()),
        *_RANGE,
        ("name_line", pa.int32()),
        ("name_col", pa.int32()),
        ("exported", pa.bool_()),
    ]
)

EDGES = pa.schema(
    [
        ("path", pa.string()),
        ("source", pa.string()),  # qualname of the enclosing definition ("" at module level)
        ("target", pa.string()),  # the referenced name as written (last segment)
        ("module", pa.string()),  # import spec, for imports and names bound by them
        ("kind", pa.string()),
        ("language", pa.string()),
        *_RANGE,
        ("resolved_path", pa.string()),  # defining file where the import graph tells
        # the definition in resolved_path the rules name ("" = the module itself)
        ("target_qualname", pa.string()),
        ("binding", pa.string()),  # Binding, as one file's rules can claim it
        ("via", pa.string()),  # the rule that bound it, in words
        ("alias", pa.string()),  # the local name an import binds, when it differs
    ]
)


class EdgeRow(NamedTuple):
    """One ``edges`` row as the extractor makes it, in EDGES' column order
    (tests/unit/test_extract.py holds the two together)."""

    path: str
    source: str
    target: str
    module: str
    kind: str
    language: str
    start_line: int  # 1-based
    start_col: int
    end_line: int
    end_col: int
    resolved_path: str | None
    target_qualname: str | None
    binding: str
    via: str
    alias: str | None


def edge_row(
    path: str,
    source: str,
    target: str,
    module: str,
    kind: str,
    language: str,
    start: tuple[int, int],
    end: tuple[int, int],
    resolved: str | None = None,
    qualname: str | None = None,
    binding: str = Binding.CANDIDATE,
    via: str = "",
    alias: str | None = None,
) -> EdgeRow:
    """An edge from ``start`` to ``end`` (0-based tree-sitter points)."""
    return EdgeRow(
        path,
        source,
        target,
        module,
        str(kind),
        language,
        start[0] + 1,
        start[1],
        end[0] + 1,
        end[1],
        resolved,
        qualname,
        str(binding),
        via,
        alias,
    )


def value_row(
    path: str,
    holder: str,
    language: str,
    start: tuple[int, int],
    end: tuple[int, int],
    resolved: str | None,
    chain: str,
    via: str,
) -> EdgeRow:
    """A ``value`` fact: what ``holder`` may hold, ``chain`` in ``resolved``
    (indexer/chains.py), read by the linker and listed by no answer."""
    return edge_row(
        path,
        holder,
        holder,
        "",
        EdgeKind.VALUE,
        language,
        start,
        end,
        resolved=resolved,
        qualname=chain,
        binding=Binding.BOUND,
        via=via,
    )


REFS = EDGES  # same rows, sorted by (target, path, start_line, start_col)

# One row per symbol (indexer/summary.py), keyed by (blob, qualname): a file
# whose bytes are unchanged keeps its summaries across versions.
SUMMARIES = pa.schema(
    [
        ("path", pa.string()),
        ("blob", pa.string()),
        ("symbol_id", pa.string()),
        ("qualname", pa.string()),
        ("kind", pa.string()),
        ("language", pa.string()),
        ("start_line", pa.int32()),
        ("end_line", pa.int32()),
        ("bytes", pa.int64()),
        ("signature", pa.string()),
        ("doc", pa.string()),  # the first paragraph of its docstring or doc comment
        ("decorators", pa.list_(pa.string())),
    ]
)

TOMBSTONES = pa.schema(
    [
        ("path", pa.string()),
        ("blob", pa.string()),
        ("seq", pa.int64()),
        ("reason", pa.string()),
    ]
)

MASKS = pa.schema([("path", pa.string())])

# the tables every shard has, and their delta counterparts
BASE_TABLES = ("documents", "symbols", "edges", "refs", "summaries")
DELTA_PREFIX = "delta-"
DELTA_TABLES = tuple(DELTA_PREFIX + t for t in BASE_TABLES)


def delta_of(table: str) -> str:
    return DELTA_PREFIX + table


TABLES: dict[str, pa.Schema] = {
    "documents": DOCUMENTS,
    "symbols": SYMBOLS,
    "edges": EDGES,
    "refs": REFS,
    "summaries": SUMMARIES,
    "tombstones": TOMBSTONES,
    "masks": MASKS,
}
TABLES.update({delta_of(t): TABLES[t] for t in BASE_TABLES})

# Sort keys that make every table's order canonical (dump, reverse-index check).
SORT_KEYS: dict[str, list[str]] = {
    "documents": ["path"],
    "symbols": ["path", "start_line", "start_col", "kind", "name"],
    "edges": ["path", "start_line", "start_col", "kind", "target"],
    "refs": ["target", "path", "start_line", "start_col", "kind"],
    "summaries": ["path", "start_line", "qualname", "kind"],
    "tombstones": ["path", "seq"],
    "masks": ["path"],
}
SORT_KEYS.update({delta_of(t): SORT_KEYS[t] for t in BASE_TABLES})

# columns that hold ids derived from content; `dump --no-ids` drops them to
# compare two indexes built with different id schemes
ID_COLUMNS = frozenset({"symbol_id", "target_symbol_id"})
