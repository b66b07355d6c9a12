"""A bare call reaches the function declared in a function around it,
innermost first, before a class's own member of that name (which only
``this.``/``self.`` reaches in JS and Rust, and which a local function
shadows in Kotlin and C#): extract.py ``_declared_around``. A Python
function nested in a method sees the method's ``self``, and a JS/TS closure
the values of the function around it (indexer/flow_js.py), as a PHP
closure those its ``use (...)`` takes."""

from __future__ import annotations

import pytest

from tests.linked import linked

CASES = {
    "javascript": (
        "m.js",
        """\
function outer() {
  function inner() { return 1; }
  return () => inner();
}
class Box {
  run() { return 1; }
  go() {
    const step = () => run();
    return step();
  }
}
function run() { return 0; }
""",
        {(3, "inner"): "outer.inner", (8, "run"): "run", (9, "step"): "Box.go.step"},
    ),
    "kotlin": (
        "m.kt",
        """\
class K {
  fun run() = 0
  fun go(): Int {
    fun run(): Int = 1
    return run()
  }
}
fun outer(): Int {
  fun inner(): Int = 1
  return inner()
}
""",
        {(5, "run"): "K.go.run", (10, "inner"): "outer.inner"},
    ),
    "csharp": (
        "m.cs",
        """\
class A {
  int Inner() => 0;
  int Outer() {
    int Inner() => 1;
    return Inner();
  }
  A() { void Setup() {} Setup(); }
  int Other() { return Inner(); }
}
""",
        {(5, "Inner"): "A.Outer.Inner", (7, "Setup"): "A.A.Setup", (8, "Inner"): "A.Inner"},
    ),
    "rust": (
        "m.rs",
        """\
struct R;
impl R {
    fn helper(&self) {}
    fn go(&self) { fn inner() {} inner(); }
}
fn outer() -> i32 {
    fn inner() -> i32 { 1 }
    inner()
}
fn helper() {}
fn x() { helper() }
""",
        {(4, "inner"): "R.go.inner", (8, "inner"): "outer.inner", (11, "helper"): "helper"},
    ),
}


@pytest.mark.parametrize("language", sorted(CASES))
def test_a_bare_call_reaches_the_function_declared_around_it(language: str) -> None:
    path, source, expected = CASES[language]
    reached = {
        (e["start_line"], e["target"]): link.symbol["qualname"]
        for e, link in linked({path: source}, language)
        if e["kind"] == "call" and link.binding == "bound"
    }
    assert {k: reached.get(k) for k in expected} == expected


def test_a_function_nested_in_a_method_calls_through_the_methods_self() -> None:
    source = """\
class Router:
    def add_route(self, path): pass
    def route(self, path):
        def decorator(func):
            self.add_route(path)
            return func
        return decorator
    def other(self):
        def inner(self):
            self.add_route(1)
        return [lambda: self.add_route(2)]
"""
    links = {
        e["start_line"]: (link.binding, link.symbol and link.symbol["qualname"])
        for e, link in linked({"m.py": source})
        if e["kind"] == "call"
    }
    assert links[5] == ("bound", "Router.add_route")  # a closure over route's self
    assert links[10] == ("candidate", None)  # inner's own parameter named self
    assert links[11] == ("bound", "Router.add_route")


def test_a_closure_reads_the_values_of_the_function_around_it() -> None:
    files = {
        "effect.ts": "export class Effect { run() { return 1 } }\n",
        "watch.ts": """\
import { Effect } from './effect'
export let shared: Effect
export function init(make: () => Effect): void {
  shared = make()
  const later = () => shared.run()
}
export function watch(cb?: number): void {
  let effect: Effect
  effect = new Effect()
  const job = () => { effect.run() }
  effect.run()
  const other = (effect) => { effect.run() }
}
""",
    }
    links = {
        e["start_line"]: (link.binding, link.symbol and link.symbol["qualname"])
        for e, link in linked(files, "typescript")
        if e["kind"] == "call" and e["target"] == "run"
    }
    # init() assigns the file's `shared`, annotated Effect: not a local of init
    assert links[5] == ("bound", "Effect.run")
    assert links[10] == ("bound", "Effect.run")  # the closure reads watch's effect
    assert links[11] == ("bound", "Effect.run")  # annotated, and assigned after
    assert links[12] == ("candidate", None)  # its own untyped parameter


def test_a_php_closure_sees_what_its_use_clause_takes() -> None:
    source = """\
<?php
class Repo { function save() {} }
function run(Repo $r) {
  $q = new Repo();
  $f = function() use ($r, &$q) { $r->save(); $q->save(); };
  $g = function() { $r->save(); };
}
"""
    links = {
        (e["start_line"], e["start_col"]): link.binding
        for e, link in linked({"m.php": source}, "php")
        if e["kind"] == "call" and e["target"] == "save"
    }
    assert links == {(5, 38): "bound", (5, 50): "bound", (6, 24): "candidate"}


def test_kotlin_this_in_an_extension_function_is_the_class_it_extends() -> None:
    source = """\
package p
class Repo {
  fun save() {}
}
class Host {
  fun log() {}
  fun Repo.saveTwice() {
    save()
    this.save()
    log()
    this.helper()
  }
}
fun Repo.helper() {}
fun Repo.plain() {}
"""
    links = {
        (e["start_line"], e["target"]): (link.binding, link.symbol and link.symbol["qualname"])
        for e, link in linked({"src/p/Repo.kt": source}, "kotlin")
        if e["kind"] == "call"
    }
    assert links[(8, "save")] == ("bound", "Repo.save")
    assert links[(9, "save")] == ("bound", "Repo.save")
    assert links[(10, "log")] == ("bound", "Host.log")  # the class around the extension
    assert links[(11, "helper")] == ("bound", "helper")  # an extension of this file, by name
    # an extension's receiver type is no return type: `fun Repo.plain()` returns nothing
    rows = [e for e, _l in linked({"src/p/Repo.kt": source}, "kotlin") if e["kind"] == "value"]
    assert [e["source"] for e in rows] == ["extends Repo"] * 3  # what each extends, no returns
