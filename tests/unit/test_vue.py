"""Vue components (indexer/vue.py): the script blocks in place, the
template's reads of what the script defines."""

from __future__ import annotations

import pytest

from freshindex.indexer import vue
from freshindex.indexer.extract import extract


def test_only_the_script_blocks_stay_and_every_byte_keeps_its_place() -> None:
    src = b'<template>\n  <a @click="go">x</a>\n</template>\n<script setup>\nconst go = 1\n</script>\n'
    out = vue.script_only(src)
    assert len(out) == len(src) and out.count(b"\n") == src.count(b"\n")
    assert b"const go = 1" in out and b"template" not in out and b"click" not in out


def test_the_template_reads_names_not_members_nor_styles() -> None:
    src = (
        b'<template><b v-if="ready" :x="a.ready" @click="go(1)">{{ ready }}</b></template>\n'
        b"<script setup>\nconst ready = 1\n</script>\n<style>.ready { }</style>\n"
    )
    found = [name for name, _start, _end in vue.template_uses(src, {"ready", "go"})]
    assert found == ["ready", "go", "ready"]


@pytest.mark.timeout(30)  # linear: a count of newlines per use took a minute
def test_a_vue_template_of_many_handlers_reads_each_once() -> None:
    # 50,000 template expressions naming the script's functions: each use's
    # line comes from one table of line starts (a count per use was
    # quadratic: a minute for this file)
    handlers = b"".join(b"const h%d = () => 1\n" % i for i in range(100))
    template = b"".join(
        b'<b @click="h%d">{{ h%d(1) }}</b>\n' % (i % 100, i % 100) for i in range(50_000)
    )
    src = b"<template>\n" + template + b"</template>\n<script setup>\n" + handlers + b"</script>\n"
    rows = extract("a.vue", "typescript", src)
    uses = [e for e in rows.edges if e[4] == "use"]
    assert len(uses) == 100_000 and uses[-1][6] == 50_001  # the last template line
