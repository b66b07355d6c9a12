"""TypeScript the grammar misreads (indexer/repairs_ts.py): hono writes its
handler factories' overloads as generic call signatures with no `;`
between them, and the file lost the definitions after them."""

from __future__ import annotations

from freshindex.indexer.extract import extract
from freshindex.indexer.repairs_ts import repaired
from tests.linked import linked

FACTORY_TS = """\
export interface CreateHandlersInterface<E, P> {
  <I = {}, R = any>(
    handler1: H<E, P, I, R>
  ): [H<E, P, I, R>]

  // handler x2
  <
    I = {},
    I2 = I,
  >(
    handler1: H<E, P, I>,
    handler2: H<E, P, I2>
  ): [H<E, P, I>, H<E, P, I2>]
}

export class Factory<E, P> {
  private initApp?: (app: E) => void

  constructor(init?: { initApp?: (app: E) => void }) {
    this.initApp = init?.initApp
  }

  createApp = (): E => {
    const app = {} as E
    if (this.initApp) {
      this.initApp(app)
    }
    return app
  }
}

export const createMiddleware = <E = any>(middleware: E): E => middleware
"""


def test_generic_call_signatures_without_semicolons_keep_the_rest_of_the_file() -> None:
    # as written, the grammar lost Factory and its members (and read
    # `const`, `if` and `return` as methods)
    names = {r[4] for r in extract("factory.ts", "typescript", FACTORY_TS.encode()).symbols}
    assert names == {
        "CreateHandlersInterface",
        "Factory",
        "Factory.initApp",
        "Factory.constructor",
        "Factory.createApp",
        "createMiddleware",
    }


def test_the_rewrite_keeps_every_byte_position_and_leaves_jsx_alone() -> None:
    fixed = repaired(FACTORY_TS.encode())
    assert len(fixed) == len(FACTORY_TS) and fixed.count(b"\n") == FACTORY_TS.count("\n")
    assert fixed.splitlines()[1] == b"; <I = {}, R = any>("  # (the first member too: harmless)
    assert fixed.splitlines()[6] == b"; <"
    jsx = b"const v = (\n  <div>\n    <Item key={1} />\n  </div>\n);\n"
    assert repaired(jsx) == jsx  # a tag is no type parameter list
    # a file the grammar reads as written is parsed once, as written
    plain = b"export const a = 1;\n"
    assert [r[4] for r in extract("a.ts", "typescript", plain).symbols] == ["a"]


def test_export_type_star_is_a_re_export() -> None:
    files = {
        "src/types.ts": "export type Child = string;\nexport function render() {}\n",
        "src/index.ts": "export type * from './types'\nexport { render } from './types'\n",
        "src/app.ts": "import { render } from './index'\nrender()\n",
    }
    bound = [
        (link.binding, link.symbol and link.symbol["qualname"])
        for e, link in linked(files, "typescript")
        if e["path"] == "src/app.ts" and e["kind"] == "call"
    ]
    assert bound == [("bound", "render")]
    stars = [e for e, _ in linked(files, "typescript") if e["target"] == "*"]
    assert [e["path"] for e in stars] == ["src/index.ts"]
