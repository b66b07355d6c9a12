"""Vue single-file components: their ``<script>`` blocks, read as TypeScript.

A ``.vue`` file holds a template, one or two script blocks (``<script>``,
``<script setup lang="ts">``) and styles. The components and composables a
Vue application calls are imported and called in the script blocks, so a
``.vue`` file is indexed as TypeScript (the grammar reads plain JavaScript
too) with everything outside its script blocks blanked byte for byte:
spaces, newlines kept, so every row's line and column are the ``.vue``
file's own. The template's expressions (``@click="save"``, ``:items="rows"``,
``v-if="ready"``, ``{{ fmt(x) }}``) name what ``<script setup>`` defines:
each such name is a ``use`` of it (template_uses), so a handler only the
template calls is not unused.
"""

from __future__ import annotations

import re

# a script block's body: after the opening tag, up to its closing tag
_SCRIPT = re.compile(rb"<script\b[^>]*>(.*?)</script\s*>", re.S | re.I)
_NOT_NEWLINE = re.compile(rb"[^\n]")
_STYLE = re.compile(rb"<style\b[^>]*>.*?</style\s*>", re.S | re.I)
# a directive's or a binding's value (`@click="save"`, `:rows="rows"`,
# `v-if="ready"`, `#default="{ item }"`), or an interpolation `{{ ... }}`
_EXPRESSION = re.compile(
    rb"""(?:\s(?:@|:|v-|\#)[\w:.\-\[\]]*\s*=\s*(?:"([^"]*)"|'([^']*)'))|\{\{(.*?)\}\}""",
    re.S,
)
_NAME = re.compile(rb"(?<![\w$.])[A-Za-z_$][\w$]*")

EXTENSION = ".vue"


def script_only(data: bytes) -> bytes:
    """The file with all but its script blocks' bodies turned to spaces."""
    out = bytearray(_NOT_NEWLINE.sub(b" ", data))
    for m in _SCRIPT.finditer(data):
        start, end = m.span(1)
        out[start:end] = data[start:end]
    return bytes(out)


def template_uses(data: bytes, names: set[str]) -> list[tuple[str, int, int]]:
    """(name, start byte, end byte) of each of ``names`` (what the script
    blocks define) read in the template's expressions; a member's name
    (``item.save``) is not one."""
    hidden = [m.span() for m in _SCRIPT.finditer(data)] + [m.span() for m in _STYLE.finditer(data)]
    out = []
    for m in _EXPRESSION.finditer(data):
        if any(start <= m.start() < end for start, end in hidden):
            continue
        group = next(g for g in (1, 2, 3) if m.group(g) is not None)
        offset = m.start(group)
        for name in _NAME.finditer(m.group(group)):
            word = name.group().decode("ascii", "replace")
            if word in names:
                out.append((word, offset + name.start(), offset + name.end()))
    return out
