"""JavaScript written before classes and modules: functions set on objects
(`exports.run =`, `Repo.prototype.save =`, `app.listen =`) are definitions,
and a constructor function with prototype methods is a class."""

from __future__ import annotations

from freshindex.indexer.extract import extract
from tests.linked import linked, rows_of

STORE_JS = """\
/** Opens the store. */
exports.open = function (path) { return helper(path); };
module.exports.close = (store) => store;
function helper(path) { return path; }

function Repo(path) { this.path = path; this.load(); }
Repo.prototype.load = function load() { return this.read(); };
Repo.prototype.read = function () { return 2; };
exports.Repo = Repo;

var app = {};
app.get = app.fetch = function fetch(key) { return key; };
module.exports = function main() {};
"""

APP_JS = """\
const store = require('./store');
store.open('x');
const { close, Repo } = require('./store');
close(1);
function use() { const r = new Repo('x'); r.load(); }
"""


def _symbols(text: str, path: str = "store.js") -> dict[str, str]:
    return {r[4]: r[5] for r in extract(path, "javascript", text.encode()).symbols}


def test_functions_set_on_objects_are_definitions_named_after_the_object() -> None:
    found = _symbols(STORE_JS)
    assert found["open"] == "function" and found["close"] == "function"
    assert found["Repo.load"] == "method" and found["Repo.read"] == "method"
    assert found["Repo"] == "class"  # it has prototype methods: `new Repo()` makes one
    assert found["app.fetch"] == "function"  # the inner one of `a.get = a.fetch = function`
    assert "exports" not in found and "main" not in found  # the module itself, no name


def test_a_summary_reads_the_assigned_function() -> None:
    rows = extract("store.js", "javascript", STORE_JS.encode()).summaries
    by_name = {r[3]: r for r in rows}
    assert by_name["open"][9] == "exports.open = function (path)"
    assert by_name["open"][10] == "Opens the store."
    assert by_name["Repo.load"][9] == "Repo.prototype.load = function load()"


def test_calls_reach_exports_prototype_methods_and_constructors() -> None:
    bound = {
        (e["path"], e["start_line"], e["target"]): link.symbol["qualname"]
        for e, link in linked({"store.js": STORE_JS, "app.js": APP_JS}, "javascript")
        if e["kind"] == "call" and link.binding == "bound"
    }
    assert bound[("app.js", 2, "open")] == "open"  # store.open(): a member of the module
    assert bound[("app.js", 4, "close")] == "close"  # destructured from require()
    assert bound[("app.js", 5, "load")] == "Repo.load"  # r = new Repo()
    assert bound[("store.js", 6, "load")] == "Repo.load"  # this.load() in the constructor
    assert bound[("store.js", 7, "read")] == "Repo.read"  # this.read() in a prototype method


def test_assignments_that_define_nothing_are_not_symbols() -> None:
    source = """\
function f(o) {
  o.handler = function () {};   // on a parameter, inside a function: a value
  this.cb = () => 1;            // on this: a value of whoever calls it
}
obj[key] = function () {};
"""
    symbols, _edges = rows_of({"m.js": source}, "javascript")
    assert {s["qualname"] for s in symbols} == {"f"}


def test_a_required_module_is_called_for_what_it_exports() -> None:
    files = {
        "package.json": '{"name": "web", "main": "index.js"}',
        "index.js": "module.exports = require('./lib/app');\n",
        "lib/app.js": (
            "function createApp() { return {}; }\nexports = module.exports = createApp;\n"
        ),
        "test/app.test.js": (
            "const web = require('..');\n"
            "web();\n"
            "const make = require('../lib/app');\n"
            "const app = make();\n"
        ),
    }
    calls = {
        e["start_line"]: (
            e["target"],
            e["alias"],
            link.binding,
            link.symbol and link.symbol["qualname"],
        )
        for e, link in linked(files, "javascript")
        if e["path"] == "test/app.test.js" and e["kind"] == "call" and e["target"] != "require"
    }
    # filed under `default`, as `import web from ".."` is, so that `refs
    # createApp` finds them whatever the local name
    assert calls[2] == ("default", "web", "bound", "createApp")  # through index.js's re-export
    assert calls[4] == ("default", "make", "bound", "createApp")


def test_a_class_exported_as_the_module_is_made_by_new_of_the_required_module() -> None:
    files = {
        "lib/application.js": (
            "module.exports = class Application extends Emitter {\n  use(fn) { return this; }\n};\n"
        ),
        "test/app.test.js": "const Koa = require('../lib/application');\nconst app = new Koa();\napp.use(1);\n",
    }
    symbols, _edges = rows_of(files, "javascript")
    assert {(s["qualname"], s["kind"]) for s in symbols if s["path"] == "lib/application.js"} == {
        ("Application", "class"),
        ("Application.use", "method"),
    }
    used = [
        (link.binding, link.symbol and link.symbol["qualname"])
        for e, link in linked(files, "javascript")
        if e["kind"] == "call" and e["target"] == "use"
    ]
    assert used == [("bound", "Application.use")]


KEYS_TS = """\
export const KEYS = {
  ENTER: "Enter",
  CTRL: isMac ? "metaKey" : "ctrlKey",
  nested: { deep: 1 },
  press: (key: string) => key,
} as const;
export const Align = { LEFT: "left" } satisfies Record<string, string>;
const Local = { hidden: 1, run() { return 1; } };
export function handle() {
  const options = { retries: 3 };  // a function's own object: no definitions
  return { ok: true };
}
"""


def test_a_top_level_objects_keys_are_its_properties_and_methods() -> None:
    for path, language in (("keys.ts", "typescript"), ("keys.tsx", "tsx")):
        found = {r[4]: r[5] for r in extract(path, language, KEYS_TS.encode()).symbols}
        assert {q: k for q, k in found.items() if "." in q} == {
            "KEYS.ENTER": "property",
            "KEYS.CTRL": "property",
            "KEYS.nested": "property",  # an object itself, whose keys are not followed
            "KEYS.press": "method",
            "Align.LEFT": "property",
            "Local.hidden": "property",
            "Local.run": "method",
        }
    plain = "export const Codes = { A: 65, b: function () {} };\n"
    assert {r[4]: r[5] for r in extract("c.js", "javascript", plain.encode()).symbols} == {
        "Codes": "constant",
        "Codes.A": "property",
        "Codes.b": "method",
    }


def test_a_key_read_through_the_imported_object_is_bound_to_it() -> None:
    files = {
        "src/keys.ts": KEYS_TS,
        "src/app.ts": (
            'import { KEYS, Align } from "./keys";\n'
            "if (event.key === KEYS.ENTER) { KEYS.press(Align.LEFT); }\n"
        ),
    }
    bound = {
        e["target"]: (link.binding, link.symbol and link.symbol["qualname"])
        for e, link in linked(files, "typescript")
        if e["path"] == "src/app.ts" and e["kind"] in ("use", "call")
    }
    assert bound["ENTER"] == ("bound", "KEYS.ENTER")
    assert bound["LEFT"] == ("bound", "Align.LEFT")
    assert bound["press"] == ("bound", "KEYS.press")


def test_a_class_extending_a_member_of_an_import_derives_from_it() -> None:
    """`class App extends React.Component<P>`: excalidraw's App left every
    `this.setState()` a name match, as the base wrote no row in TypeScript
    and a name match in JavaScript."""
    app = (
        'import React from "react";\n'
        'import * as models from "./models";\n'
        "class App extends React.Component<P> {\n"
        "  go() { this.setState({}); return this.props; }\n"
        "}\n"
        "class Repo extends models.Base {\n"  # 6
        "  go() { this.save(); this.other(); }\n"
        "}\n"
    )
    files = {"models.ts": "export class Base { save() {} }\n"}
    for language, path, source in (
        ("tsx", "app.tsx", app),
        ("javascript", "app.js", app.replace("<P>", "")),
    ):
        got = {
            (e["start_line"], e["target"]): (link.binding, link.symbol and link.symbol["qualname"])
            for e, link in linked({**files, path: source}, language)
            if e["path"] == path
        }
        assert got[(3, "Component")] == ("external", None)  # the package's class
        assert got[(4, "setState")] == ("external", None)  # what App leaves to it
        assert got[(6, "Base")] == ("bound", "Base")  # a member of a namespace import
        assert got[(7, "save")] == ("bound", "Base.save")
        assert got[(7, "other")] == ("candidate", None)  # Base has none


def test_a_union_aliass_object_types_give_it_members() -> None:
    """excalidraw's `BucketFillGeometryResult = | {ok: true; ...} | {ok:
    false; ...}`: `result.scenePoints` had no member to name."""
    types = (
        "export type Result =\n"
        "  | { ok: true; points: number[] }\n"
        "  | { ok: false; reason: string }\n"
        "  | null;\n"
        "export function compute(x: { a: 1 } | { b: 2 }): Result { return null; }\n"
    )
    found = [(r[4], r[7]) for r in extract("t.ts", "typescript", types.encode()).symbols]
    # a name on two sides is defined on each; a parameter's type has no members
    assert found == [
        ("Result", 1),
        ("Result.ok", 2),
        ("Result.points", 2),
        ("Result.ok", 3),
        ("Result.reason", 3),
        ("compute", 5),
    ]
    app = 'import { compute } from "./t";\nconst r = compute({ a: 1 });\nuse(r.points, r.reason);\n'
    got = {
        e["target"]: (link.binding, link.symbol and link.symbol["qualname"])
        for e, link in linked({"t.ts": types, "app.ts": app}, "typescript")
        if e["path"] == "app.ts" and e["kind"] == "use"
    }
    assert got["points"] == ("bound", "Result.points")
    assert got["reason"] == ("bound", "Result.reason")


def test_a_constructors_parameter_properties_are_fields_of_its_class() -> None:
    """socket.io's `constructor(private readonly adapter: Adapter, ...)`:
    `this.adapter` had no field to name."""
    source = (
        "export class Repo { find() {} }\n"
        "export class Svc {\n"
        "  constructor(private readonly repo: Repo, readonly name: string, plain: number) {}\n"
        "  run() { this.repo.find(); return [this.name]; }\n"
        "}\n"
    )
    fields = [
        (r[4], r[5])
        for r in extract("s.ts", "typescript", source.encode()).symbols
        if r[5] == "field"
    ]
    assert fields == [("Svc.repo", "field"), ("Svc.name", "field")]  # not `plain`
    got = {
        e["target"]: (link.binding, link.symbol and link.symbol["qualname"])
        for e, link in linked({"s.ts": source}, "typescript")
        if e["start_line"] == 4
    }
    assert got["find"] == ("bound", "Repo.find")
    assert got["name"] == ("bound", "Svc.name")


def test_the_test_runners_globals_and_their_members_are_the_runners() -> None:
    """excalidraw's tests call `expect.objectContaining()` 568 times, and
    each was a name match for any `objectContaining` of the repository;
    a file's own `vi` stays its own."""
    tests = (
        "expect(1).not.toBe(2);\n"
        "expect.objectContaining({});\n"
        "vi.fn();\n"
        "it.each([1])('x', () => {});\n"
    )
    got = {
        e["target"]: link.binding
        for e, link in linked({"a.test.ts": tests}, "typescript")
        if e["kind"] == "call"
    }
    assert got == {
        "expect": "external",
        "toBe": "external",
        "objectContaining": "external",
        "fn": "external",
        "each": "external",
    }
    own = "const vi = { fn() {} };\nvi.fn();\n"
    calls = [
        (link.binding, link.symbol and link.symbol["qualname"])
        for e, link in linked({"b.ts": own}, "typescript")
        if e["kind"] == "call"
    ]
    assert calls == [("bound", "vi.fn")]
    # a parameter or local of a runner's name is the function's own
    local = "export function f(items, test) {\n  items.map((it) => it.save());\n  test.run();\n}\n"
    bindings = {
        e["target"]: link.binding
        for e, link in linked({"c.js": local}, "javascript")
        if e["kind"] == "call" and e["target"] != "map"
    }
    assert bindings == {"save": "candidate", "run": "candidate"}


def test_a_top_level_objects_keys_hold_what_they_are_given() -> None:
    """hono's `export const Jwt = { sign, verify, decode }`: `Jwt.sign()`
    is a call of the function `sign`, not a name match."""
    files = {
        "jwt/sign.ts": "export function sign(p: string) { return p; }\nexport class Repo { find() {} }\n",
        "jwt/index.ts": (
            'import { sign, Repo } from "./sign";\n'
            "const check = (t: string) => t;\n"
            "export const Jwt = { sign, verify: check, repo: new Repo() };\n"
        ),
        "app.ts": 'import { Jwt } from "./jwt/index";\nJwt.sign("x");\nJwt.verify("y");\nJwt.repo.find();\n',
    }
    defined = {
        r[4] for r in extract("jwt/index.ts", "typescript", files["jwt/index.ts"].encode()).symbols
    }
    assert {"Jwt.sign", "Jwt.verify", "Jwt.repo"} <= defined
    got = {
        e["target"]: (link.binding, link.symbol and link.symbol["qualname"])
        for e, link in linked(files, "typescript")
        if e["path"] == "app.ts" and e["kind"] == "call"
    }
    assert got == {
        "sign": ("bound", "sign"),
        "verify": ("bound", "check"),
        "find": ("bound", "Repo.find"),
    }
