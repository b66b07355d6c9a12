"""The ``<Using>`` items of a C# project file: its global usings.

SDK-style projects may import namespaces for every file of the project in
``Foo.csproj`` rather than in a ``GlobalUsings.cs`` (Polly's test projects:
``<Using Include="Polly.Specs.Helpers" />``, ``<Using Include="X"
Static="true" />``, ``<Using Include="Y" Alias="Z" />``). A project file is
no code, so it is not parsed: the query side reads the blob the index
recorded for it and turns its items into the rows a ``global using`` line
gives (indexer/bind_csharp.py ``GLOBAL_USING``), which the linker reads for
the project's files (query/link.py ``csharp_usings``). ``Remove`` items and
``Directory.Build.props`` (which reaches every project below it) are not read.
"""

from __future__ import annotations

import re
from typing import Any

from freshindex.indexer.bind_csharp import GLOBAL_USING
from freshindex.indexer.schema import EDGES, Binding, EdgeKind, edge_row

PROJECT_SUFFIX = ".csproj"
_ITEM = re.compile(rb"<Using\b([^>]*?)/?>", re.S)
_ATTRIBUTE = re.compile(rb'\b(Include|Alias)\s*=\s*"([^"]*)"')
# a project file is a few kilobytes; past this it is not read
MAX_BYTES = 1 << 20


def project_usings(path: str, data: bytes) -> list[dict[str, Any]]:
    """The global using rows a project file's ``<Using Include>`` items give."""
    if len(data) > MAX_BYTES:
        return []
    out = []
    for m in _ITEM.finditer(data):
        attributes = {k.decode(): v.decode("utf-8", "replace") for k, v in _ATTRIBUTE.findall(m[1])}
        namespace = attributes.get("Include", "").strip()
        if not namespace or any(c.isspace() or c in "$(@;" for c in namespace):
            continue  # none, or an MSBuild expression, not a name
        row = edge_row(
            path,
            "",
            GLOBAL_USING,
            namespace,
            EdgeKind.IMPORT,
            "csharp",
            _point(data, m.start()),
            _point(data, m.end()),
            binding=Binding.EXTERNAL,
            via=f"<Using> of {path}",
            alias=attributes.get("Alias") or None,
        )
        out.append(dict(zip(EDGES.names, row, strict=True)))
    return out


def _point(data: bytes, at: int) -> tuple[int, int]:
    """(line, column) of a byte offset, 0-based, as tree-sitter gives them:
    an item may be written over several lines."""
    return data.count(b"\n", 0, at), at - (data.rfind(b"\n", 0, at) + 1)
