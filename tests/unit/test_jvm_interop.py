"""Java and Kotlin share packages: a Kotlin file imports a Java class (and
the other way round) and calls it; an annotation interface (``@interface
GET``) is a definition an import can name."""

from __future__ import annotations

from typing import Any

from freshindex.indexer.extract import extract
from freshindex.indexer.languages import language_for
from freshindex.indexer.resolve import PathIndex
from freshindex.indexer.schema import EDGES, SYMBOLS
from freshindex.query.link import table_linker
from tests.linked import linked

FILES = {
    "lib/src/main/java/app/http/GET.java": "package app.http;\npublic @interface GET { String value(); }\n",
    "lib/src/main/java/app/Client.java": (
        "package app;\n"
        "public class Client {\n"
        "  public static final class Builder { public Client build() { return new Client(); } }\n"
        "  public void send() {}\n"
        "}\n"
    ),
    "lib/src/main/java/app/Tools.kt": "package app\nclass Tools { fun run() {} }\n",
    "lib/src/test/java/app/ClientTest.kt": (
        "package app\n"
        "import app.http.GET\n"
        "class ClientTest {\n"
        "  fun go() { Client.Builder().build().send() }\n"
        "}\n"
    ),
    "lib/src/test/java/app/ToolsTest.java": (
        "package app;\nclass ToolsTest { void go() { new Tools().run(); } }\n"
    ),
}


def _linked() -> list[tuple[dict[str, Any], Any]]:
    paths = PathIndex(list(FILES))
    symbols, edges = [], []
    for path, text in FILES.items():
        rows = extract(path, language_for(path) or "", text.encode(), paths)
        symbols += [dict(zip(SYMBOLS.names, r, strict=True)) for r in rows.symbols]
        edges += [dict(zip(EDGES.names, r, strict=True)) for r in rows.edges]
    linker = table_linker(symbols, edges)
    return [
        (e, linker.link(e["binding"], e["via"], e["resolved_path"], e["target_qualname"]))
        for e in edges
    ]


def test_kotlin_and_java_reach_each_others_classes() -> None:
    reached = {
        (e["path"].rsplit("/", 1)[-1], e["kind"], e["target"]): (
            link.binding,
            link.symbol and link.symbol["qualname"],
        )
        for e, link in _linked()
        if e["kind"] in ("call", "import")
    }
    assert reached[("ClientTest.kt", "import", "GET")] == ("bound", "GET")
    assert reached[("ClientTest.kt", "call", "build")] == ("bound", "Client.Builder.build")
    assert reached[("ClientTest.kt", "call", "send")] == ("bound", "Client.send")
    assert reached[("ToolsTest.java", "call", "run")] == ("bound", "Tools.run")


def test_a_class_nested_in_the_one_around_the_call_types_its_receiver() -> None:
    # retrofit's tests: `interface Service` nested in the test class; okhttp's
    # `private class LogRecorder` with fluent asserts
    java = """\
package p;
class BasicCallTest {
  interface Service { Call getBody(); }
  void test(Service example) { example.getBody(); }
}
"""
    kotlin = """\
package p
class LoggingTest {
  private val logs = LogRecorder()
  fun basic() { logs.assertLogEqual("a").assertLogEqual("b") }
  private class LogRecorder { fun assertLogEqual(s: String): LogRecorder = this }
}
"""
    got = {
        (e["path"], e["start_line"], e["start_col"]): link.symbol["qualname"]
        if link.symbol
        else None
        for language, path, source in (
            ("java", "p/BasicCallTest.java", java),
            ("kotlin", "p/T.kt", kotlin),
        )
        for e, link in linked({path: source}, language)
        if e["kind"] == "call"
    }
    assert got[("p/BasicCallTest.java", 4, 39)] == "BasicCallTest.Service.getBody"
    assert got[("p/T.kt", 4, 21)] == "LoggingTest.LogRecorder.assertLogEqual"
    assert got[("p/T.kt", 4, 41)] == "LoggingTest.LogRecorder.assertLogEqual"  # what it returns
