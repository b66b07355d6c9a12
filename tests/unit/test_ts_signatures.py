"""TypeScript types that are only signatures: an interface's methods, a type
alias's object members (`type Ky = {get: (url: string) => Res}`, one side of
`{...} & Promise<R>`), and its call signature (`{ (url: string): Res }`)
are definitions and say what calling them returns (indexer/flow_js.py), so
`ky(url).text()` and `ky.get(url).json()` bind, as they do in ky."""

from __future__ import annotations

from tests.linked import linked, rows_of

FILES = {
    "src/types.ts": """\
export type Res<T = unknown> = {
  text: () => Promise<string>;
  json: () => Promise<T>;
} & Promise<T>;
export type Ky = {
  <T>(url: string): Res<T>;
  get: <T>(url: string) => Res<T>;
  create: (defaults?: object) => Ky;
};
export interface Store {
  find(key: string): Res;
}
""",
    "src/index.ts": """\
import type {Ky} from './types';
const createInstance = (defaults?: object): Ky => {
  const ky = ((url: string) => fetch(url)) as unknown as Ky;
  return ky;
};
const ky = createInstance();
export default ky;
""",
    "test/main.ts": """\
import ky from '../src/index';
import type {Store} from '../src/types';
async function run(store: Store) {
  await ky('/a').text();
  await ky.get('/b').json();
  const api = ky.create({});
  await api.get('/c').text();
  await store.find('k').text();
}
""",
}


def test_type_alias_members_are_definitions() -> None:
    symbols = {s["qualname"]: s["kind"] for s in rows_of(FILES, "typescript")[0]}
    assert symbols["Res.text"] == "property" and symbols["Ky.get"] == "property"
    assert symbols["Store.find"] == "method"


def test_calls_bind_through_signatures_and_what_they_return() -> None:
    got = {
        (e["start_line"], e["target"]): link.symbol["qualname"] if link.symbol else None
        for e, link in linked(FILES, "typescript")
        if e["path"] == "test/main.ts" and e["kind"] == "call"
    }
    assert got[(4, "text")] == "Res.text"  # the call signature of Ky returns a Res
    assert got[(5, "get")] == "Ky.get" and got[(5, "json")] == "Res.json"
    assert got[(6, "create")] == "Ky.create"
    assert got[(7, "text")] == "Res.text"  # api is what create returns: a Ky
    assert got[(8, "text")] == "Res.text"  # an interface method's return type


def test_a_field_whose_value_is_a_function_is_called_as_a_method() -> None:
    # hono's Context: `header: SetHeaders = (name, value) => {...}` is a
    # method; its annotation types its calls, not a value the field holds
    files = {
        "src/context.ts": """\
type SetHeaders = (name: string, value?: string) => void
export class Context {
  header: SetHeaders = (name, value) => {}
  json = (data: object): Reply => new Reply()
}
export class Reply { send(): void {} }
""",
        "src/app.ts": """\
import { Context } from './context'
function handle(c: Context) {
  c.header('X-Foo', 'Bar')
  c.json({}).send()
}
""",
    }
    got = {
        e["target"]: link.symbol["qualname"] if link.symbol else None
        for e, link in linked(files, "typescript")
        if e["path"] == "src/app.ts" and e["kind"] == "call"
    }
    assert got["header"] == "Context.header"
    assert got["json"] == "Context.json" and got["send"] == "Reply.send"


def test_a_local_export_alias_names_the_files_own_definition() -> None:
    # hono's hono-base.ts: `class Hono {...}; export { Hono as HonoBase }`
    files = {
        "src/hono-base.ts": """\
class Hono {
  request = (path: string): number => 1
  route(path: string): Hono { return this }
}
export { Hono as HonoBase }
""",
        "src/hono.ts": """\
import { HonoBase } from './hono-base'
export class Hono extends HonoBase {}
""",
        "test/app.ts": """\
import { Hono } from '../src/hono'
const app = new Hono()
app.request('/')
app.route('/a').request('/b')
""",
    }
    got = {
        (e["start_line"], e["start_col"]): link.symbol["qualname"] if link.symbol else None
        for e, link in linked(files, "typescript")
        if e["path"] == "test/app.ts" and e["kind"] == "call"
    }
    assert got[(3, 4)] == "Hono.request"  # the base's, through the alias
    assert got[(4, 4)] == "Hono.route" and got[(4, 16)] == "Hono.request"


def test_a_declaration_files_constants_are_definitions() -> None:
    # zod's regexes.d.ts: `export declare const md5_hex: RegExp;`
    src = "export declare const md5_hex: RegExp;\ndeclare const local: number;\n"
    symbols = {s["qualname"]: s["kind"] for s in rows_of({"regexes.d.ts": src}, "typescript")[0]}
    assert symbols == {"md5_hex": "constant", "local": "constant"}
