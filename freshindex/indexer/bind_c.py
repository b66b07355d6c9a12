"""C and C++ calls, bound through the include graph when the index is read.

One file's rules cannot say which header declares ``kmalloc``: the file
includes ``<linux/slab.h>``, which includes more. So a bare call that the file
does not define itself is stored as a claim on the file (``resolved_path`` =
the calling file, ``target_qualname`` = the name) marked with ``INCLUDE_VIA``,
and its includes as ``import`` rows resolved to files of the tree
(indexer/resolve.py: quoted includes beside the file, then by suffix; angle
includes against include roots found by suffix, ``include/`` and
``arch/*/include/`` style). The linker (freshindex/query/link.py) then
follows the includes transitively, bounded, and binds the call to the first
definition it sees: a ``static inline`` function or a function-like macro in
a header is visible to every includer, as the compiler sees it. A function
declared in a header and defined in a ``.c`` file is bound to its one
definition with external linkage in the repository, as the linker binds it;
two or more such definitions (one per architecture) leave the call a
candidate. A ``static`` function binds within its own file, at extraction.

An edit rewrites only its own file's rows: who sees what is decided when the
index is read, so an update still equals a full build.
"""

from __future__ import annotations

INCLUDE_VIA = "through the includes of this file"

# the include graph is followed this deep and this wide from a calling file
MAX_INCLUDE_DEPTH = 12
MAX_INCLUDED_FILES = 4000

LANGUAGES = ("c", "cpp")
