"""Non-relative JavaScript and TypeScript imports resolved through the
tree's tsconfig aliases and workspace packages (indexer/js_modules.py), and
what a re-export passes on.

Over 400 lines: each case needs its own small tree of package.json and
tsconfig files, and splitting them would scatter one resolver's cases."""

from __future__ import annotations

from typing import Any

from freshindex.indexer.extract import extract
from freshindex.indexer.languages import language_for
from freshindex.indexer.resolve import PathIndex
from freshindex.indexer.schema import EDGES, SYMBOLS
from freshindex.query.link import table_linker
from tests.linked import Row
from tests.linked import linked as link_all

TSCONFIG = b"""{
  // the app's aliases, with comments and a trailing comma as tsc allows
  "extends": "./tsconfig.base.json",
  "compilerOptions": {
    "baseUrl": ".",
    "paths": { "@/*": ["./src/*"], "~config": ["./config/index.ts"], },
    /* "paths": {"broken": } */
    "strict": true,
  },
}
"""
FILES: dict[str, bytes] = {
    "apps/web/tsconfig.json": TSCONFIG,
    "apps/web/tsconfig.base.json": b'{"compilerOptions": {"target": "es2022"}}',
    "apps/web/package.json": b'{"name": "web", "dependencies": {"@acme/utils": "*", "react": "*"}}',
    "apps/web/src/lib/db.ts": b"export function connect() { return 1; }\n",
    "apps/web/config/index.ts": b"export const port = 1;\n",
    "apps/web/src/app/page.tsx": (
        b'import { connect } from "@/lib/db";\n'
        b'import { port } from "~config";\n'
        b'import { format } from "@acme/utils";\n'
        b'import { slug } from "@acme/utils/text";\n'
        b'import { useState } from "react";\n'
        b"export function Page() { connect(); format(port); slug(); useState(); }\n"
    ),
    "packages/utils/package.json": (
        b'{"name": "@acme/utils", "main": "dist/index.js", "types": "dist/index.d.ts",'
        b' "exports": {".": {"import": "./dist/index.js"}}}'
    ),
    "packages/utils/src/index.ts": b"export function format(x: number) { return `${x}`; }\n",
    "packages/utils/src/text.ts": b"export function slug() { return ''; }\n",
    # a package whose entry is in the tree as written
    "packages/ids/package.json": b'{"name": "@acme/ids", "main": "lib/ids.js"}',
    "packages/ids/lib/ids.js": b"export function id() { return 1; }\n",
}


def reached(linker: Any, e: Row) -> tuple[str, str | None]:
    """What an edge links to: its binding, and ``path::qualname`` or None."""
    link = linker.link(e["binding"], e["via"], e["resolved_path"], e["target_qualname"])
    return (
        link.binding,
        f"{link.symbol['path']}::{link.symbol['qualname']}" if link.symbol else None,
    )


def linked(files: dict[str, bytes], paths: PathIndex | None = None) -> tuple[list[Row], Any]:
    """Every file's edge rows (the language by suffix) and a linker over them."""
    paths = paths or PathIndex(list(files))
    symbols: list[Row] = []
    edges: list[Row] = []
    for path, data in files.items():
        language = language_for(path)
        if language not in ("javascript", "typescript", "tsx"):
            continue
        rows = extract(path, language, data, paths)
        symbols += [dict(zip(SYMBOLS.names, r, strict=True)) for r in rows.symbols]
        edges += [dict(zip(EDGES.names, r, strict=True)) for r in rows.edges]
    return edges, table_linker(symbols, edges)


def index(files: dict[str, bytes]) -> PathIndex:
    configs = {p: d for p, d in files.items() if p.endswith(".json")}
    return PathIndex.of_tree(list(files), {}, (), None, configs)


def test_tsconfig_aliases_and_workspace_packages_resolve() -> None:
    paths = index(FILES)
    page = "apps/web/src/app/page.tsx"
    assert paths("typescript", page, "@/lib/db", "connect") == "apps/web/src/lib/db.ts"
    assert paths("typescript", page, "~config", "port") == "apps/web/config/index.ts"
    # dist/index.js is not in the tree: the package's src/index
    assert paths("typescript", page, "@acme/utils", "format") == "packages/utils/src/index.ts"
    assert paths("typescript", page, "@acme/utils/text", "slug") == "packages/utils/src/text.ts"
    assert paths("javascript", page, "@acme/ids", "id") == "packages/ids/lib/ids.js"
    assert paths("typescript", page, "react", "useState") is None  # from outside
    # baseUrl: a bare path from the config's folder
    assert paths("typescript", page, "src/lib/db", "connect") == "apps/web/src/lib/db.ts"
    # outside the config's folder, its aliases do not apply
    assert paths("typescript", "packages/utils/src/index.ts", "@/lib/db", "connect") is None


def test_a_built_entry_is_its_source_and_a_root_of_the_same_name_yields() -> None:
    """socket.io's layout: the monorepo's root package.json and its
    packages/socket.io share the name; the package's entries are
    `dist/index.js` and `dist/index.d.ts`, built from `lib/` (its
    tsconfig's rootDir), which the tree holds. `dist/esm/client.js` is
    `lib/client.ts`; an entry under `lib/` is tried under `src/`."""
    files: dict[str, bytes] = {
        "package.json": b'{"name": "socket.io", "private": true, "workspaces": ["packages/*"]}',
        "packages/socket.io/package.json": (
            b'{"name": "socket.io", "main": "./dist/index.js",'
            b' "exports": {".": {"types": "./dist/index.d.ts", "import": "./dist/index.js"},'
            b' "./client": "./dist/esm/client.js"}}'
        ),
        "packages/socket.io/lib/index.ts": b"export class Server { emit() {} }\n",
        "packages/socket.io/lib/client.ts": b"export class Client {}\n",
        "packages/parser/package.json": b'{"name": "parser", "main": "./lib/cjs/index.js"}',
        "packages/parser/src/cjs/index.ts": b"export const p = 1;\n",
    }
    wanted = {
        "socket.io": "packages/socket.io/lib/index.ts",
        "socket.io/client": "packages/socket.io/lib/client.ts",
        "parser": "packages/parser/src/cjs/index.ts",
    }
    paths = index({**files, "packages/adapter/test/index.ts": b""})
    got = {m: paths("typescript", "packages/adapter/test/index.ts", m, "x") for m in wanted}
    assert got == wanted


def test_a_method_of_a_class_from_a_package_outside_is_external() -> None:
    """`c: Client` of `import { Client } from "pg"`, `new Client()`, and a
    field given one: pg's methods, not candidates for the repository's
    `query`. The workspace's own package stays the repository's."""
    files: dict[str, bytes] = {
        "packages/db/package.json": b'{"name": "@acme/db", "main": "dist/index.js"}',
        "packages/db/src/index.ts": b"export class Pool { query() {} }\n",
        "app/m.ts": (
            b'import { Client } from "pg";\nimport { Pool } from "@acme/db";\n'
            b"class R { query() {} }\n"
            b"export function f(c: Client, p: Pool) {\n"
            b"  c.query('a');\n"  # 5
            b"  const d = new Client();\n  d.query('b');\n"  # 7
            b"  p.query();\n"  # 8
            b"}\n"
            b"export class S { private c = new Client(); run() { this.c.query('z'); } }\n"  # 10
        ),
    }
    edges, linker = linked(files, index(files))
    got = {
        (e["start_line"], e["target"]): reached(linker, e)[0]
        for e in edges
        if e["path"] == "app/m.ts" and e["kind"] == "call"
    }
    assert [got[(n, "query")] for n in (5, 7, 10)] == ["external"] * 3
    assert got[(8, "query")] == "bound"


def test_exports_patterns_map_a_subpath_to_its_file() -> None:
    files: dict[str, bytes] = {
        "packages/kit/package.json": (
            b'{"name": "kit", "exports": {".": "./src/index.ts", "./fmt": "./src/fmt/main.ts",'
            b' "./*": "./src/*.ts", "./icons/*": {"import": "./dist/icons/*.js"},'
            b' "./bad/*": "./src/bad.ts"}}'
        ),
        "packages/kit/src/index.ts": b"export const a = 1;\n",
        "packages/kit/src/fmt/main.ts": b"export const f = 1;\n",
        "packages/kit/src/date.ts": b"export const d = 1;\n",
        "packages/kit/dist/icons/arrow.ts": b"export const arrow = 1;\n",
        "app/main.ts": b"",
    }
    paths = index(files)
    at = "app/main.ts"
    assert paths("typescript", at, "kit", "a") == "packages/kit/src/index.ts"
    assert paths("typescript", at, "kit/fmt", "f") == "packages/kit/src/fmt/main.ts"  # exact first
    assert paths("typescript", at, "kit/date", "d") == "packages/kit/src/date.ts"
    # the longer head wins: ./icons/* before ./*; a built .js as its .ts source
    assert paths("typescript", at, "kit/icons/arrow", "x") == "packages/kit/dist/icons/arrow.ts"
    # a pattern whose file has no `*` is not one Node would read: not followed
    assert paths("typescript", at, "kit/bad/x", "x") is None


def test_calls_through_aliases_bind_and_the_digest_sees_the_configs() -> None:
    paths = index(FILES)
    edges, linker = linked(FILES, paths)
    calls = {}
    for e in edges:
        if e["kind"] == "call" and e["path"].endswith("page.tsx"):
            link = linker.link(e["binding"], e["via"], e["resolved_path"], e["target_qualname"])
            calls[e["target"]] = (link.binding, link.symbol["path"] if link.symbol else None)
    assert calls["connect"] == ("bound", "apps/web/src/lib/db.ts")
    assert calls["format"] == ("bound", "packages/utils/src/index.ts")
    assert calls["slug"] == ("bound", "packages/utils/src/text.ts")
    assert calls["useState"][0] == "external"
    # another alias target is another resolution: the digest differs
    moved = dict(FILES, **{"apps/web/tsconfig.json": TSCONFIG.replace(b"./src/*", b"./lib/*")})
    assert index(moved).digest != paths.digest
    assert PathIndex(list(FILES)).digest != paths.digest


def test_unreadable_configs_add_nothing() -> None:
    files = {
        "tsconfig.json": b"{ not json",
        "package.json": b"\xff\xfe",
        "a/package.json": b'{"name": 7}',
        "src/x.ts": b"export const x = 1;\n",
    }
    paths = index(files)
    assert paths("typescript", "src/x.ts", "@/x", "x") is None
    assert paths.js is not None and paths.js.packages == ()


def test_barrels_and_namespace_imports_bind_through_to_the_definition() -> None:
    files: dict[str, bytes] = {
        "lib/index.ts": (
            b'export * from "./core.js";\nexport { toZod, toZod as zz } from "./util.js";\n'
        ),
        "lib/core.ts": b"export function parse() {}\n",
        "lib/util.ts": b"export function toZod() {}\n",
        "app.ts": (
            b'import { parse, zz } from "./lib/index.js";\n'
            b'import * as z from "./lib";\n'
            b'import * as React from "react";\n'
            b"parse(); zz(); z.toZod(); React.useState();\n"
        ),
    }
    edges, linker = linked(files)
    got = {}
    for e in edges:
        if e["path"] == "app.ts" or e["target"] == "*":
            link = linker.link(e["binding"], e["via"], e["resolved_path"], e["target_qualname"])
            where = (
                f"{link.symbol['path']}::{link.symbol['qualname']}" if link.symbol else link.path
            )
            got[(e["kind"], e["target"], e["start_line"])] = (link.binding, where)
    assert got[("import", "*", 1)] == ("bound", "lib/core.ts")  # the module re-exported
    assert got[("call", "parse", 4)] == ("bound", "lib/core.ts::parse")  # through export *
    assert got[("call", "zz", 4)] == ("bound", "lib/util.ts::toZod")  # through export { as }
    assert got[("import", "z", 2)] == ("bound", "lib/index.ts")  # the namespace: a module
    assert got[("call", "toZod", 4)] == ("bound", "lib/util.ts::toZod")  # z.toZod()
    assert got[("call", "useState", 4)][0] == "external"


def test_hostile_configs_are_read_in_linear_time_or_not_at_all() -> None:
    files = {
        "tsconfig.json": b"/*" * 300_000,  # unclosed comments: one pass, not one per `/*`
        "a/tsconfig.json": b"[" * 100_000 + b"]" * 100_000,  # past the JSON parser's depth
        "b/package.json": b'{"name": ' * 50_000,
        "c/tsconfig.json": b'{"compilerOptions": {"paths": {"x/*": ["./y/*"]}}} // "tail',
        "c/y/z.ts": b"export const z = 1;\n",
    }
    many = ", ".join(f'"k{i}/*": ["./v{i}/*"]' for i in range(20_000))
    files["d/tsconfig.json"] = b'{"compilerOptions": {"paths": {' + many.encode() + b"}}}"
    files["d/package.json"] = b'{"name": "@d/d"}'
    paths = index(files)
    assert paths.js is not None and [p.name for p in paths.js.packages] == ["@d/d"]
    assert paths("typescript", "c/m.ts", "x/z", "z") == "c/y/z.ts"
    # a config's aliases and an import's parts are read up to a bound
    for _ in range(2_000):
        assert paths("typescript", "d/m.ts", "@d/d/" + "a/" * 5_000, "x") is None


def test_commonjs_requires_bind_like_imports() -> None:
    files: dict[str, bytes] = {
        "m.js": b"function a() {}\nfunction b() {}\nmodule.exports = { a, b };\n",
        "_baseRest.js": b"function baseRest(f) { return f; }\nmodule.exports = baseRest;\n",
        "u.js": (
            b'const { a, b: bee } = require("./m");\n'
            b'const m = require("./m");\n'
            b'var baseRest = require("./_baseRest");\n'
            b'const fs = require("fs");\n'
            b'const x = load("./m");\n'
            b"a(); bee(); m.b(); baseRest(a); fs.readFileSync(); x.a();\n"
        ),
    }
    edges, linker = linked(files)
    calls = {}
    for e in edges:
        if e["kind"] == "call" and e["start_line"] == 6:
            link = linker.link(e["binding"], e["via"], e["resolved_path"], e["target_qualname"])
            where = f"{link.symbol['path']}::{link.symbol['qualname']}" if link.symbol else None
            calls[(e["target"], e["start_col"])] = (link.binding, where)
    assert calls[("a", 0)] == ("bound", "m.js::a")
    assert calls[("bee", 5)] == ("bound", "m.js::b")
    assert calls[("b", 14)] == ("bound", "m.js::b")  # m.b()
    # baseRest(): the module's `module.exports`, filed under `default`
    assert calls[("default", 19)] == ("bound", "_baseRest.js::baseRest")
    assert calls[("readFileSync", 35)][0] == "external"
    assert calls[("a", 53)][0] == "candidate"  # load() is no require


def test_a_default_import_binds_to_what_the_module_exports_as_default() -> None:
    files: dict[str, bytes] = {
        "m.ts": b"export default function make() {}\n",
        "k.tsx": b"class K {}\nexport default K;\n",
        "n.ts": b"export default { a: 1 };\n",
        "u.ts": (
            b'import build from "./m";\nimport Kay from "./k";\nimport N from "./n";\n'
            b'import { default as z } from "./m";\n'
            b"build(); new Kay(); z(); N.a();\n"
        ),
    }
    edges, linker = linked(files)
    got = {}
    for e in edges:
        if e["path"] == "u.ts":
            got[(e["kind"], e["target"], e["start_line"])] = reached(linker, e)
    assert got[("call", "build", 5)] == ("bound", "m.ts::make")  # another local name
    assert got[("call", "Kay", 5)] == ("bound", "k.tsx::K")  # `export default K;`
    assert got[("call", "z", 5)] == ("bound", "m.ts::make")  # `{ default as z }`
    # filed as `import { default as N }`: refs of what n.ts exports as default finds it
    assert got[("import", "default", 3)][0] == "candidate"  # an object: no definition
    assert got[("import", "default", 1)] == ("bound", "m.ts::make")


def test_a_barrel_re_exports_defaults_under_names() -> None:
    files: dict[str, bytes] = {
        "ui/Button/Button.tsx": b"export default function Button() { return null; }\n",
        "ui/Card/index.ts": b"const Card = () => null;\nexport default Card;\n",
        "ui/index.ts": (
            b'export { default as Button } from "./Button/Button";\n'
            b'export { default as Card, default } from "./Card";\n'
        ),
        "app.tsx": (
            b'import { Button, Card } from "./ui";\nimport Main from "./ui";\n'
            b"Button(); Card(); Main();\n"
        ),
    }
    edges, linker = linked(files)
    got = {}
    for e in edges:
        if e["path"] == "app.tsx" and e["kind"] == "call":
            got[e["target"]] = reached(linker, e)[1]
    assert got == {
        "Button": "ui/Button/Button.tsx::Button",
        "Card": "ui/Card/index.ts::Card",
        "Main": "ui/Card/index.ts::Card",  # the barrel's own default: Card's
    }


def test_members_of_imported_classes_and_objects_bind() -> None:
    files: dict[str, bytes] = {
        "a.ts": (
            b"export class C {\n  static create() { return new C(); }\n  go() {}\n}\n"
            b"export const api = { run() {}, walk: () => 1 };\n"
        ),
        "b.ts": (
            b'import { C, api } from "./a";\nimport React from "react";\n'
            b"C.create(); api.run(); React.useState(); Math.max(1); api.walk();\n"
        ),
        # a parameter of the same name may hide the import: left alone
        "c.ts": b'import { api } from "./a";\nfunction f(api) { api.run(); }\n',
        # what the static method returns, held by a local
        "d.ts": b'import { C } from "./a";\nconst c = C.create();\nc.go();\n',
    }
    edges, linker = linked(files)
    got = {}
    for e in edges:
        if e["kind"] == "call" and e["path"] in ("b.ts", "c.ts", "d.ts"):
            got[(e["path"], e["target"])] = reached(linker, e)
    assert got[("b.ts", "create")] == ("bound", "a.ts::C.create")  # a static method
    assert got[("b.ts", "run")] == ("bound", "a.ts::api.run")  # an object's method
    assert got[("b.ts", "walk")] == ("bound", "a.ts::api.walk")  # a key holding a function
    assert got[("b.ts", "useState")][0] != "bound"
    assert got[("b.ts", "max")][0] == "external"  # JavaScript's Math
    assert got[("c.ts", "run")][0] == "candidate"
    assert got[("d.ts", "go")] == ("bound", "a.ts::C.go")


def test_a_jsx_element_of_a_component_is_a_call_of_it() -> None:
    files: dict[str, bytes] = {
        "ui/Button.tsx": b"export default function Button() { return null; }\n",
        "ui/kit.ts": b"export function Card() { return null; }\n",
        "page.jsx": (
            b'import Btn from "./ui/Button";\nimport * as kit from "./ui/kit";\n'
            b"export const Page = () => <div><Btn /><kit.Card>x</kit.Card><span /></div>;\n"
        ),
    }
    files["page.tsx"] = files["page.jsx"]
    for page in ("page.jsx", "page.tsx"):
        edges, linker = linked(
            {k: v for k, v in files.items() if k in (page, "ui/Button.tsx", "ui/kit.ts")}
        )
        got = {}
        for e in edges:
            if e["path"] == page and e["kind"] == "call":
                got[e["target"]] = reached(linker, e)[1]
        # one call per element, not its closing tag; `div` and `span` are the host's
        assert got == {"Btn": "ui/Button.tsx::Button", "Card": "ui/kit.ts::Card"}, page


def test_a_folder_required_is_its_package_entry_or_its_index() -> None:
    paths = PathIndex(["index.js", "lib/main.js", "lib/router/index.js", "test/app.js"])
    assert paths.resolve("javascript", "test/app.js", "..", "x") == "index.js"
    assert paths.resolve("javascript", "lib/app.js", "./router", "x") == "lib/router/index.js"
    assert paths.resolve("javascript", "test/app.js", ".", "x") is None  # no test/index.js
    files = {
        "package.json": b'{"name": "web", "main": "lib/main.js"}',
        "lib/main.js": b"",
        "test/a.js": b"",
    }
    entry = PathIndex.of_tree(list(files), {}, (), None, {"package.json": files["package.json"]})
    assert entry.resolve("javascript", "test/a.js", "..", "x") == "lib/main.js"


def test_a_name_a_module_re_exports_from_a_package_with_star_is_the_packages() -> None:
    """excalidraw's test-utils.ts has `export * from "@testing-library/react"`,
    and its tests' `screen.getByTitle()` were name matches."""
    files = {
        "utils.ts": 'export * from "@testing-library/react";\nexport * from "./local";\n',
        "local.ts": "export function helper() {}\n",
        "app.test.ts": (
            'import { screen, helper } from "./utils";\nscreen.getByTitle("x");\nhelper();\n'
        ),
    }
    got = {
        e["target"]: (link.binding, link.symbol and link.symbol["qualname"])
        for e, link in link_all(files, "typescript")
        if e["path"] == "app.test.ts" and e["kind"] == "call"
    }
    assert got["getByTitle"] == ("external", None)
    assert got["helper"] == ("bound", "helper")  # the repository's own star comes first
