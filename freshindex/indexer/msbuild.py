"""The ``<Using>`` items of a C# project file: its global usings.

SDK-style projects may import namespaces for every file of the project in
``Foo.csproj`` rather than in a ``GlobalUsings.cs`` (Polly's test projects:
``<Using Include="Polly.Specs.Helpers" />``, ``<Using Include="X"
Static="true" />``, ``<Using Include="Y" Alias="Z" />``). A project file is
no code, so it is not parsed: the query side reads the blob the index
recorded for it and turns its items into the rows a ``global using`` line
gives (indexer/bind_csharp.py ``GLOBAL_USING``), which the linker reads for
the project's files (query/link.py ``csharp_usings``). MSBuild imports a
``Directory.Build.props`` or ``Directory.Build.targets`` into every project
below its folder (Polly's targets file holds its usings), so their items
reach those projects' files; a condition on an item group
(``'$(IncludePollyUsings)' == 'true'``) is not evaluated, as a using the
project does not have only widens where a name is looked for. ``Remove``
items are not read.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from freshindex.indexer.bind_csharp import GLOBAL_USING
from freshindex.indexer.schema import EDGES, Binding, EdgeKind, edge_row

PROJECT_SUFFIX = ".csproj"
# imported by MSBuild into every project in or below their folder
SHARED_FILES = ("Directory.Build.props", "Directory.Build.targets")
_ITEM = re.compile(rb"<Using\b([^>]*?)/?>", re.S)
_ATTRIBUTE = re.compile(rb'\b(Include|Alias)\s*=\s*"([^"]*)"')
# a project file is a few kilobytes; past this it is not read
MAX_BYTES = 1 << 20


def is_project_file(path: str) -> bool:
    """A project file, or a file MSBuild imports into the projects below it."""
    return path.endswith(PROJECT_SUFFIX) or posixpath.basename(path) in SHARED_FILES


def reaches(project_file: str, project: str) -> bool:
    """Whether the items of ``project_file`` are the project's whose folder
    is ``project``: its own file, or a shared one in or above that folder."""
    folder = posixpath.dirname(project_file)
    if project_file.endswith(PROJECT_SUFFIX):
        return folder == project
    return not folder or project == folder or project.startswith(folder + "/")


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
