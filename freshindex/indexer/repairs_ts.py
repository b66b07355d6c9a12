"""Valid TypeScript that tree-sitter-typescript 0.23 misreads, rewritten
byte for byte before a second parse, which extract.py keeps only where it
parses with fewer errors than the file as written:

- a generic call signature on the line after another member, with no `;`
  between them (`interface Get { <K>(key: K): V` then `<K>(key: K): W }`),
  which TypeScript's automatic semicolons accept and hono writes its
  `Context`, `types.ts` and factory helpers with: the grammar reads the `<`
  as a comparison and loses every definition after it. The first
  indentation character of such a line becomes the `;`.
- `export type * from "./types"` (TypeScript 5.0): `type` becomes spaces,
  an `export * from` the grammar knows.

Lengths and line breaks are kept, so every node's position and text are
those of the file as written.
"""

from __future__ import annotations

import re

# a member line opening a type parameter list: `<K>(`, `<K extends X`,
# `<K, V>`, `<K = X>`, or `<` alone (one parameter a line); not a JSX tag
_GENERIC_MEMBER = re.compile(
    rb"(?m)^[ \t](?=[ \t]*<(?:[ \t]*\r?$|\s*[A-Za-z_$][\w$]*\s*(?:extends\b|[,=]|>\s*\()))"
)
_TYPE_STAR = re.compile(rb"\bexport(\s+)type(?=\s*\*)")


def repaired(source: bytes) -> bytes:
    """``source`` with the forms above rewritten (the same bytes elsewhere)."""
    out = _GENERIC_MEMBER.sub(b";", source)
    return _TYPE_STAR.sub(lambda m: b"export" + m.group(1) + b"    ", out)
