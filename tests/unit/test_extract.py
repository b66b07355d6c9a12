"""Extraction rules (indexer/queries/*.scm) against one fixture file per language."""

from __future__ import annotations

import gc
import json
import sys
import tracemalloc
from pathlib import Path

import pytest

from freshindex.indexer import extract as extract_module
from freshindex.indexer.extract import ParseBudgetExceeded, extract, parse
from freshindex.indexer.languages import LANGUAGES, language_for
from freshindex.indexer.resolve import PathIndex
from freshindex.indexer.schema import EDGES, SUMMARIES, SYMBOLS

FIXTURES = Path(__file__).parents[1] / "fixtures" / "lang"


def rows_text(path: str, data: bytes) -> str:
    lang = language_for(path)
    assert lang is not None
    rows = extract(path, lang, data, resolve=None)
    lines = [
        json.dumps(dict(zip(SYMBOLS.names, r, strict=True)), sort_keys=True) for r in rows.symbols
    ]
    lines += [
        json.dumps(dict(zip(EDGES.names, r, strict=True)), sort_keys=True) for r in rows.edges
    ]
    lines += [
        json.dumps(dict(zip(SUMMARIES.names, r, strict=True)), sort_keys=True, ensure_ascii=False)
        for r in rows.summaries
    ]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("fixture", sorted(p.name for p in FIXTURES.iterdir()))
def test_extraction_matches_golden(fixture: str, golden) -> None:  # type: ignore[no-untyped-def]
    data = (FIXTURES / fixture).read_bytes()
    golden(f"lang/{fixture}.jsonl", rows_text(fixture, data))


def test_every_language_has_a_fixture() -> None:
    covered = {language_for(p.name) for p in FIXTURES.iterdir()}
    assert covered == set(LANGUAGES)


def _symbols(path: str, src: str) -> dict[str, tuple[str, int, str]]:
    lang = language_for(path)
    assert lang
    rows = extract(path, lang, src.encode())
    return {r[4]: (r[5], r[7], r[3]) for r in rows.symbols}  # qualname -> kind, line, container


def test_python_methods_are_qualified_by_class() -> None:
    syms = _symbols("m.py", "class A:\n    def f(self):\n        def inner():\n            pass\n")
    assert syms["A.f"] == ("method", 2, "A")
    assert syms["A.f.inner"][0] == "function"


def test_go_method_container_is_receiver_type() -> None:
    syms = _symbols("s.go", "package p\n\nfunc (s *Srv) Run() {}\n")
    assert syms["Srv.Run"] == ("method", 3, "Srv")


def test_go_variables_of_a_var_block_are_definitions() -> None:
    src = 'package p\n\nvar (\n\terrUnknown = errors.New("x")\n\tcount = 0\n)\nvar one = 1\n'
    syms = _symbols("v.go", src)
    assert syms["errUnknown"] == ("variable", 4, "") and syms["count"] == ("variable", 5, "")
    assert syms["one"] == ("variable", 7, "")


def test_a_js_class_field_holding_a_function_is_a_method_and_others_fields() -> None:
    src = "class C {\n  handle = () => { this.go(); };\n  n = 1;\n  go() {}\n}\n"
    for path in ("c.ts", "c.js"):
        syms = _symbols(path, src)
        assert syms["C.handle"] == ("method", 2, "C")
        assert syms["C.n"] == ("field", 3, "C")
    syms = _symbols("p.ts", "interface Props {\n  name: string;\n  f(x: { a: number }): void;\n}\n")
    assert syms["Props.name"] == ("property", 2, "Props")
    assert "Props.a" not in syms and "Props.f.a" not in syms  # a parameter's type literal


def test_a_typescript_enum_member_is_a_constant_of_its_enum() -> None:
    syms = _symbols("e.ts", "export enum Alg {\n  HS256 = 'HS256',\n  Plain,\n}\n")
    assert syms["Alg.HS256"] == ("constant", 2, "Alg") and syms["Alg.Plain"] == (
        "constant",
        3,
        "Alg",
    )


def test_rust_impl_methods_are_qualified_by_type() -> None:
    syms = _symbols("l.rs", "struct S;\nimpl S {\n    fn go(&self) {}\n}\n")
    assert syms["S.go"] == ("method", 3, "S")


def test_exported_flags() -> None:
    rows = extract("x.go", "go", b"package p\nfunc Public() {}\nfunc private() {}\n")
    flags = {r[2]: r[13] for r in rows.symbols}
    assert flags == {"Public": True, "private": False}
    rows = extract("x.ts", "typescript", b"export function a() {}\nfunction b() {}\n")
    assert {r[2]: r[13] for r in rows.symbols} == {"a": True, "b": False}


def test_calls_resolve_through_imports() -> None:
    index = PathIndex(["pkg/models.py", "pkg/__init__.py", "app/main.py"])
    src = b"from pkg.models import save\n\ndef run():\n    save()\n"
    rows = extract("app/main.py", "python", src, resolve=index)
    call = next(e for e in rows.edges if e[4] == "call")
    assert call[2] == "save" and call[10] == "pkg/models.py" and call[1] == "run"


def test_relative_and_js_resolution() -> None:
    index = PathIndex(["a/b/c.py", "a/b/d.py", "web/x.ts", "web/lib/index.ts", "go/pkg/util/u.go"])
    assert index("python", "a/b/c.py", ".d", "thing") == "a/b/d.py"
    assert index("python", "a/b/c.py", ".", "d") == "a/b/d.py"
    assert index("typescript", "web/x.ts", "./lib", "f") == "web/lib/index.ts"
    assert index("typescript", "web/x.ts", "react", "f") is None
    assert index("go", "go/main.go", "example.com/m/pkg/util", "util") == "go/pkg/util/u.go"


def test_python_import_prefers_the_folder_on_the_importers_path() -> None:
    index = PathIndex(
        [
            "src/flask/__init__.py",
            "src/flask/helpers.py",
            "tests/apps/inner/flask.py",
            "tests/apps/inner/run.py",
            "examples/app.py",
            "services/a/app/models.py",
            "services/a/app/views.py",
            "services/b/app/models.py",
            "pkg/__init__.py",
            "pkg/mod.py",
            "pkg.py",
            "tool/__init__.py",
            "tool/tool.py",
            "tool/utils/__init__.py",
            "tool/sub/run.py",
            "tool/json/__init__.py",
            "tool/typing.py",
            "scripts/logging.py",
            "scripts/run.py",
        ]
    )
    # a src/ layout's package, not a same-named module deep in test data
    assert index("python", "examples/app.py", "flask", "url_for") == "src/flask/__init__.py"
    assert index("python", "examples/app.py", "flask.helpers", "f") == "src/flask/helpers.py"
    # a script beside the module sees its own folder first
    assert index("python", "tests/apps/inner/run.py", "flask", "x") == "tests/apps/inner/flask.py"
    # the copy under the importer's own tree
    assert index("python", "services/a/app/views.py", "app.models", "M") == (
        "services/a/app/models.py"
    )
    # in one folder: a package before a module, a submodule before a symbol
    assert index("python", "examples/app.py", "pkg", "") == "pkg/__init__.py"
    assert index("python", "examples/app.py", "pkg", "mod") == "pkg/mod.py"
    assert index("python", "examples/app.py", "pkg", "other") == "pkg/__init__.py"
    # a package's own folder is not on the path: `from tool import utils`
    # inside tool/ is the package's utils, not tool/tool.py's
    assert index("python", "tool/sub/run.py", "tool", "utils") == "tool/utils/__init__.py"
    # a module named like the standard library's is that one, from the
    # package itself, from anywhere else, and from inside it
    assert index("python", "tool/sub/run.py", "json", "") is None
    assert index("python", "examples/app.py", "typing", "Any") is None
    assert index("python", "tool/json/__init__.py", "json", "dumps") is None
    # unless a script's own folder has it: that one comes first
    assert index("python", "scripts/run.py", "logging", "") == "scripts/logging.py"


def test_deeply_nested_expression_is_bounded() -> None:
    # nesting real code never reaches is skipped before any walk: a node's
    # parent costs its depth, so a name at every level cost depth squared
    src = b"x = " + b"(" * 10_000 + b"1" + b")" * 10_000 + b"\n"
    with pytest.raises(ParseBudgetExceeded, match="nested"):
        extract("deep.py", "python", src)
    # under the bound the file is indexed, and our sweep is not recursive
    src = b"x = " + b"(" * 1_500 + b"1" + b")" * 1_500 + b"\n"
    assert [r[2] for r in extract("deep.py", "python", src).symbols] == ["x"]


@pytest.mark.parametrize(
    ("path", "language", "src"),
    [
        ("A.java", "java", b"class A { void f(C c) { c" + b".m()" * 20_000 + b"; } }"),
        ("a.js", "javascript", b"x = " + b"f(" * 20_000 + b")" * 20_000),
        ("a.go", "go", b"package a\nfunc f() { x := &T{" + b"&T{" * 5_000 + b"}" * 5_001 + b" }"),
        ("A.java", "java", b"class A {" + b"class B {" * 5_000 + b"}" * 5_001),
    ],
)
def test_hostile_nesting_is_skipped(path: str, language: str, src: bytes) -> None:
    # each of these took minutes to hours before the nesting bound
    with pytest.raises(ParseBudgetExceeded, match="nested"):
        extract(path, language, src)


def test_nesting_under_the_bound_keeps_every_name() -> None:
    # 900 nested calls: each name's parent comes from the captured call, not a
    # walk from the root, and every one is an edge
    src = b"class A { void f() { " + b"m(" * 900 + b")" * 900 + b"; } void m(Object o) {} }"
    calls = [e for e in extract("A.java", "java", src).edges if e.kind == "call"]
    assert len(calls) == 900
    assert {(e.target_qualname, e.binding) for e in calls} == {("A.m", "bound")}


def test_query_matches_in_progress_are_bounded() -> None:
    # a Kotlin chain keeps a match open per link until its name: past the
    # limit the file is skipped instead of costing links x matches
    src = b"fun f(c: C) {\n  c" + b".m()" * 700 + b"\n}\n"
    with pytest.raises(ParseBudgetExceeded, match="matches in progress"):
        extract("A.kt", "kotlin", src)


def test_java_anonymous_class_calls_are_not_the_outer_class() -> None:
    src = b"""class Outer {
  void run() {}
  void f() {
    run();
    Runnable r = new Runnable() { public void run() {} void g() { run(); } };
    class Local { void h() { run(); } }
  }
}
"""
    calls = [e for e in extract("Outer.java", "java", src).edges if e.target == "run"]
    assert [(e.start_line, e.target_qualname) for e in calls] == [
        (4, "Outer.run"),  # the enclosing class's method
        (5, None),  # inside the anonymous class: its own run() comes first
        (6, "Outer.f.Local.run"),  # a local class: bound to its own class, bases after
    ]


def test_parse_budget_cuts_off_pathological_input() -> None:
    junk = b"{[(" * 200_000  # 600 KB of unbalanced brackets: heavy error recovery
    with pytest.raises(ParseBudgetExceeded):
        parse("python", junk, work_factor=0)


def test_invalid_utf8_parses() -> None:
    rows = extract("bad.py", "python", b"def f():\n    return '\xff\xfe'\n")
    assert [r[2] for r in rows.symbols] == ["f"]


def test_parsing_keeps_no_reference_to_the_source() -> None:
    """py-tree-sitter 0.26.1 keeps a reference to every chunk a read callback
    returns; parse() releases them, so a long-lived worker or service does not
    keep every file it ever parsed."""
    small = bytes(bytearray(b"def f(a):\n    return g(a)\n" * 80))  # one chunk: the file itself
    before = sys.getrefcount(small)
    for _ in range(20):
        extract("a.py", "python", small)
    assert sys.getrefcount(small) == before
    big = b"def f(a):\n    return g(a)\n" * 8000  # 208 kB: four chunks, each a copy
    gc.collect()
    # only what the parse's own code allocated (the chunks are sliced in
    # extract.py): other threads of a test process allocate meanwhile
    ours = [tracemalloc.Filter(True, extract_module.__file__)]
    tracemalloc.start()
    try:
        before_parse = tracemalloc.take_snapshot().filter_traces(ours)
        for _ in range(5):
            parse("python", big)
        gc.collect()
        after_parse = tracemalloc.take_snapshot().filter_traces(ours)
    finally:
        tracemalloc.stop()
    kept = sum(d.size_diff for d in after_parse.compare_to(before_parse, "filename"))
    assert kept < len(big) // 10  # five leaked copies would be 5x


def test_a_cancelled_parse_keeps_no_reference_either(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("freshindex.indexer.extract._PARSE_CALLS_FLOOR", 0)  # cancel at once
    junk = bytes(bytearray(b"{[(" * 1_000))  # one chunk: the source itself
    before = sys.getrefcount(junk)
    for _ in range(3):
        with pytest.raises(ParseBudgetExceeded):
            parse("python", junk, work_factor=0)
    assert sys.getrefcount(junk) == before


def test_new_languages_resolve_their_imports() -> None:
    paths = [
        "native/include/store.h",
        "native/src/store.cpp",
        "ruby/lib/item.rb",
        "ruby/lib/cart.rb",
        "web/src/Models/User.php",
        "web/bootstrap.php",
        "android/app/Repo.kt",
        "dotnet/Shop/Models/Order.cs",
    ]
    index = PathIndex(paths)
    assert index("cpp", "native/src/store.cpp", "../include/store.h", "store.h") == paths[0]
    assert index("cpp", "native/src/store.cpp", "include/store.h", "store.h") == paths[0]
    assert index("cpp", "native/src/store.cpp", "<vector>", "<vector>") is None
    assert index("ruby", "ruby/lib/cart.rb", "item", "item") == "ruby/lib/item.rb"
    assert index("php", "web/src/x.php", "App\\Models\\User", "User") == paths[4]
    assert index("php", "web/src/x.php", "/../bootstrap.php", "bootstrap.php") == paths[5]
    assert index("kotlin", "android/Main.kt", "com.example.app.Repo", "Repo") == paths[6]
    assert index("csharp", "dotnet/Program.cs", "Shop.Models", "Models") == paths[7]


def test_a_csharp_conditional_between_a_signature_and_its_body_keeps_the_members_inside() -> None:
    """serilog's ILogger: a default body under `#if FEATURE_DEFAULT_INTERFACE`
    and `;` after `#endif`; the grammar cannot place the directives there,
    and every later member fell outside the interface."""
    src = (
        b"namespace Serilog;\npublic interface ILogger\n{\n#if FEATURE\n    [Custom]\n#endif\n"
        b"    ILogger ForContext(object enricher)\n#if FEATURE\n        => new Config()\n"
        b"            .Logger(this)\n            .ForContext(enricher)\n#endif\n    ;\n\n"
        b"    ILogger ForContext(string name)\n#if FEATURE\n    {\n        if (name == null!)\n"
        b"            return this;\n        return ForContext(new Agg(name));\n    }\n"
        b"#else\n        ;\n#endif\n    void Write(string message);\n}\n"
    )
    rows = extract("src/ILogger.cs", "csharp", src, PathIndex(["src/ILogger.cs"]))
    quals = [dict(zip(SYMBOLS.names, r, strict=True))["qualname"] for r in rows.symbols]
    member = "Serilog.ILogger."
    assert quals == [
        "Serilog.ILogger",
        *(member + m for m in ("ForContext", "ForContext", "Write")),
    ]


def test_summaries_stop_the_signature_at_the_body_or_a_comment_before_it() -> None:
    src = (
        b"@dec\n"
        b"def f(a,\n      b):  # trailing\n    # leading\n    return 1\n\n\n"
        b'def g():\n    """Doc line.\n\n    More."""\n    return 2\n'
    )
    got = {r[3]: (r[9], r[10], r[11]) for r in extract("a.py", "python", src).summaries}
    assert got["f"] == ("def f(a, b)", "", ["@dec"])
    assert got["g"] == ("def g()", "Doc line.", [])


def test_edge_rows_are_in_the_schema_column_order() -> None:
    from freshindex.indexer.schema import EdgeRow

    assert EdgeRow._fields == tuple(EDGES.names)


def test_rust_std_macros_and_prelude_variants_are_external() -> None:
    src = (
        b"macro_rules! vec { () => {} }\n"
        b"use crate::opt::Some;\n"
        b"fn f() -> Result<(), ()> {\n"
        b'    assert_eq!(1, 1);\n    vec!();\n    format!("x");\n    Some(1);\n    Ok(())\n}\n'
    )
    rows = extract("src/lib.rs", "rust", src, resolve=PathIndex(["src/lib.rs", "src/opt.rs"]))
    calls = {e[2]: (e[12], e[13]) for e in rows.edges if e[4] == "call"}
    assert calls["assert_eq"] == ("external", "a macro of std")
    assert calls["format"] == ("external", "a macro of std")
    assert calls["Ok"] == ("external", "a variant of the prelude's Result")
    # the file's own macro, and an imported name, are not std's
    assert calls["vec"] == ("bound", "defined in this file")
    assert calls["Some"][0] == "bound"


@pytest.mark.timeout(30)  # linear: re-sorting every span at each question took 13 s at 20,000
def test_parameters_named_like_a_function_hide_it_in_each_of_many_functions() -> None:
    # a Rust file of 40,000 functions, each passing on a parameter named like
    # the top-level `p`: each statement's bindings are read when first asked
    # about (indexer/shadows.py), and the spans kept in order as they come
    src = b"fn p() {}\n" + b"".join(b"fn f%d(p: u8) { g(p) }\n" % i for i in range(40_000))
    rows = extract("src/lib.rs", "rust", src)
    assert not [e for e in rows.edges if e[4] == "use"]  # every `p` passed is the parameter
    assert sum(1 for e in rows.edges if e[4] == "call" and e[2] == "g") == 40_000
