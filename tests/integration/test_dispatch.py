"""``refs`` of an overriding method lists the calls that reach it through
dynamic dispatch: calls bound to the method it overrides, made on an
instance or ``self``, as its ``dispatch`` rows (query/dispatch.py), in
Python, Java, TypeScript, C#, C++, Go and Rust (tests/integration/
test_bases_binding.py: the calls and bases that make hierarchies known)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.repos import build_template, copy_built

FILES: dict[str, str | bytes] = {
    "py/base.py": (
        "class Base:\n"
        "    def run(self):\n"
        "        raise NotImplementedError\n"
        "\n"
        "    def go(self):\n"
        "        self.run()\n"
        "\n\n"
        "def drive(b: Base):\n"
        "    b.run()\n"
        "    Base.run(b)\n"
    ),
    "py/impl.py": (
        "from py.base import Base\n"
        "\n\n"
        "class Impl(Base):\n"
        "    def run(self):\n"
        "        super().run()\n"
        "\n\n"
        "class Deeper(Impl):\n"
        "    def run(self):\n"
        "        pass\n"
        "\n\n"
        "def main():\n"
        "    Impl().run()\n"
    ),
    "py/proto.py": (
        "from typing import Protocol\n"
        "\n\n"
        "class Named(Protocol):\n"
        "    def name(self) -> str: ...\n"
        "\n\n"
        "class Runner(Named, Protocol):\n"
        "    def run(self) -> None: ...\n"
        "\n\n"
        "class Job:  # satisfies Runner without naming it\n"
        "    def name(self) -> str:\n"
        "        return 'job'\n"
        "\n"
        "    def run(self) -> None:\n"
        "        pass\n"
        "\n\n"
        "class Half:  # has run, not name: no Runner\n"
        "    def run(self) -> None:\n"
        "        pass\n"
        "\n\n"
        "class Named2(Named):  # derives from a protocol: a class, not a protocol\n"
        "    def run(self) -> None:\n"
        "        pass\n"
        "\n\n"
        "def start(r: Runner, n: Named2) -> None:\n"
        "    r.run()\n"
        "    n.run()\n"
    ),
    "py/cache.py": (
        "from collections.abc import MutableMapping\n"
        "\n\n"
        "class Cache(MutableMapping):\n"
        "    def __setitem__(self, key, value):\n"
        "        self.popitem()\n"  # 6: MutableMapping's, or a subclass's own
        "\n\n"
        "class Mixin:\n"
        "    def run(self):\n"
        "        return self.handle()\n"  # 11: no class of its lineage has it
        "\n\n"
        "class FIFOCache(Cache, Mixin):\n"
        "    def popitem(self):\n"
        "        return 1\n"
        "\n"
        "    def handle(self):\n"
        "        return 2\n"
    ),
    "py/bag.py": (
        "class Bag:\n"
        "    def __iter__(self):\n"
        "        return iter([])\n"
        "\n"
        "    def __eq__(self, other):\n"
        "        return True\n"
        "\n\n"
        "class Sack(Bag):\n"
        "    def __iter__(self):\n"
        "        return iter([1])\n"
        "\n\n"
        "class Plain:\n"
        "    pass\n"
        "\n\n"
        "def use(b: Bag, s: Sack, p: Plain, xs: list):\n"
        "    for x in b:\n"  # 19: Bag's __iter__, or a Sack's
        "        pass\n"
        "    if p == p:\n"  # 21: Plain leaves __eq__ to object
        "        pass\n"
        "    for y in xs:\n"  # 23: a list's
        "        pass\n"
        "    return [z for z in s]\n"  # 25: Sack's
    ),
    "rs/src/lib.rs": "pub mod shapes;\npub mod total;\n",
    "rs/src/shapes/mod.rs": (
        "pub trait Shape {\n    fn area(&self) -> f64;\n}\n\npub struct Tile;\n\n"
        "impl Shape for Tile {\n    fn area(&self) -> f64 {\n        1.0\n    }\n}\n"
    ),
    "rs/src/total.rs": (
        "use shapes::Shape;\n\n"
        "pub fn total(s: &dyn Shape) -> f64 {\n    s.area()\n}\n\n"
        "pub fn each<T: Shape>(s: T) -> f64 {\n    s.area()\n}\n\n"
        "pub fn two<T>(s: T) -> f64\nwhere\n    T: Shape + Clone,\n{\n    s.area()\n}\n"
    ),
    "java/a/Repo.java": "package a;\n\npublic interface Repo {\n    void save();\n}\n",
    "java/a/Impl.java": (
        "package a;\n\npublic class Impl implements Repo {\n    public void save() {}\n}\n"
    ),
    "java/a/Sub.java": (
        "package a;\n\npublic class Sub extends Impl {\n"
        "    public void save() {\n        super.save();\n    }\n}\n"
    ),
    "java/b/Use.java": (
        "package b;\n\nimport a.Repo;\n\nclass Use {\n"
        "    void f(Repo r) {\n        r.save();\n    }\n}\n"
    ),
    "java/a/Util.java": (
        "package a;\n\npublic class Util {\n    static Util make() {\n        return null;\n    }\n\n"
        "    void use() {\n        make();\n    }\n}\n"
    ),
    "java/a/Util2.java": (
        "package a;\n\npublic class Util2 extends Util {\n"
        "    @Deprecated\n    public static Util make() {\n        return null;\n    }\n}\n"
    ),
    "ts/repo.ts": (
        "export class Shape {\n  area(): number {\n    return 0;\n  }\n"
        "  describe(): string {\n    return `${this.area()}`;\n  }\n}\n"
    ),
    "ts/square.ts": (
        'import { Shape } from "./repo";\n\n'
        "export class Square extends Shape {\n  area(): number {\n    return super.area() + 1;\n  }\n}\n"
    ),
    "cs/Base.cs": (
        "namespace A\n{\n    public class Base\n    {\n"
        "        public virtual void Run() {}\n        public void Go() { Run(); }\n    }\n}\n"
    ),
    "cs/Impl.cs": (
        "namespace A\n{\n    public class Impl : Base\n    {\n"
        "        public override void Run() { base.Run(); }\n    }\n}\n"
    ),
    "cpp/base.h": (
        "#pragma once\nnamespace ns {\nclass Base {\n public:\n  virtual void Run();\n};\n"
        "}  // namespace ns\n"
    ),
    "cpp/base.cc": (
        '#include "base.h"\nnamespace ns {\nvoid Base::Run() {}\n'
        "void Drive(Base* b) { b->Run(); }\n}  // namespace ns\n"
    ),
    "cpp/impl.h": (
        '#pragma once\n#include "base.h"\nnamespace ns {\nclass Impl : public Base {\n public:\n'
        "  void Run() override;\n};\n}  // namespace ns\n"
    ),
    "cpp/impl.cc": '#include "impl.h"\nnamespace ns {\nvoid Impl::Run() { Base::Run(); }\n}\n',
    "go/run/run.go": (
        'package run\n\nimport "io"\n\n'
        "type Namer interface {\n\tName() string\n}\n\n"
        "type Runner interface {\n\tNamer\n\tRun() error\n}\n\n"
        "type RunCloser interface {\n\tio.Closer\n\tRun() error\n}\n\n"
        "type Stream interface {\n\tio.Reader\n\tpkg.Unknown\n\tRun() error\n}\n\n"
        "type Stopper interface {\n\tRun() error\n\tStop()\n}\n\n"
        "func Drive(r Runner) error {\n\tr.Name()\n\treturn r.Run()\n}\n\n"
        "func Close(c RunCloser) error {\n\treturn c.Run()\n}\n\n"
        "func Halt(s Stopper) error {\n\treturn s.Run()\n}\n\n"
        "func Flow(s Stream) error {\n\treturn s.Run()\n}\n"
    ),
    "go/run/server.go": (
        "package run\n\ntype Server struct{}\n\n"
        "func (s *Server) Run() error { return nil }\n\n"
        'func (s *Server) Name() string { return "s" }\n\n'
        "func (s *Server) Close() error { return nil }\n"
    ),
}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory, prefect_api: str) -> tuple[Path, Path]:
    return build_template(tmp_path_factory.mktemp("dispatch"), FILES, shards=2)


@pytest.fixture
def refs(template: tuple[Path, Path], tmp_path: Path, run_cli: Any) -> Any:
    repo, store = copy_built(template, tmp_path)

    def ask(target: str) -> dict[str, Any]:
        code, out, err = run_cli("--repo", str(repo), "--store", store, "--json", "refs", target)
        assert code == 0, err
        return json.loads(out)  # type: ignore[no-any-return]

    return ask


def places(rows: list[dict[str, Any]]) -> list[tuple[str, int]]:
    return [(r["path"], r["startLine"]) for r in rows]


def test_python_calls_of_the_base_method_may_run_the_override(refs: Any) -> None:
    doc = refs("Impl.run")
    assert places(doc["bound"]) == [("py/impl.py", 15)]  # Impl().run()
    # self.run() in Base.go and b.run() on a Base; not Base.run(b), which
    # names the base's own, nor super().run()
    assert places(doc["dispatch"]) == [("py/base.py", 6), ("py/base.py", 10)]
    assert all("may run Impl.run, which overrides Base.run" in r["via"] for r in doc["dispatch"])
    assert all(
        r["binding"] == "bound" and r["targetQualname"] == "Base.run" for r in doc["dispatch"]
    )
    assert doc["results"] == [*doc["bound"], *doc["dispatch"], *doc["candidates"], *doc["external"]]
    [group] = doc["groups"]
    assert group["dispatch"] == doc["dispatch"]
    # two levels down: Base.run's calls and Impl.run's (super() is explicit)
    deeper = refs("Deeper.run")
    assert places(deeper["dispatch"]) == [
        ("py/base.py", 6),
        ("py/base.py", 10),
        ("py/impl.py", 15),
    ]
    # the base itself has no dispatch rows: nothing it overrides
    base = refs("Base.run")
    assert base["dispatch"] == []
    assert ("py/impl.py", 6) in places(base["bound"])  # super().run()


def test_a_method_a_base_leaves_to_its_own_outside_base_or_to_none_may_run_the_override(
    refs: Any,
) -> None:
    """cachetools' `self.popitem()` in Cache, a MutableMapping: the call
    resolves outside the repository, and runs FIFOCache.popitem on a
    FIFOCache; a mixin's `self.handle()` that only subclasses define."""
    doc = refs("FIFOCache.popitem")
    assert places(doc["dispatch"]) == [("py/cache.py", 6)]
    assert "may run FIFOCache.popitem" in doc["dispatch"][0]["via"]
    assert ("py/cache.py", 6) not in places(doc["external"])  # listed once
    doc = refs("FIFOCache.handle")
    assert places(doc["dispatch"]) == [("py/cache.py", 11)]
    assert ("py/cache.py", 11) not in places(doc["candidates"])


def test_syntax_that_calls_a_special_method_is_a_call_of_it(refs: Any) -> None:
    """`for x in b` calls b's __iter__ without naming it (indexer/
    protocols_python.py): bound where the value's class is known, a dispatch
    row of an override, and no name match of a class that has none."""
    doc = refs("Bag.__iter__")
    assert places(doc["bound"]) == [("py/bag.py", 19)]
    assert "a for loop calls __iter__ implicitly" in doc["bound"][0]["via"]
    doc = refs("Sack.__iter__")
    assert places(doc["bound"]) == [("py/bag.py", 25)]
    assert places(doc["dispatch"]) == [("py/bag.py", 19)]
    assert "may run Sack.__iter__, which overrides Bag.__iter__" in doc["dispatch"][0]["via"]
    # `p == p` on a Plain (object's __eq__) is no candidate of Bag's, nor is
    # the loop over a list one of Bag's __iter__
    doc = refs("Bag.__eq__")
    assert doc["bound"] == doc["candidates"] == doc["external"] == []
    assert ("py/bag.py", 23) not in places(refs("__iter__")["results"])


def test_an_interface_call_may_run_each_implementation(refs: Any) -> None:
    for target in ("Impl.save", "Sub.save"):
        doc = refs(target)
        java = [r for r in doc["dispatch"] if r["path"].startswith("java/")]
        assert places(java) == [("java/b/Use.java", 7)], target
        assert "implements Repo.save" in java[0]["via"]
    # a static method is not dispatched: make() in Util runs Util.make
    assert refs("Util2.make")["dispatch"] == []
    # super.save() in Sub binds to Impl.save (it was a name match)
    impl = refs("Impl.save")
    assert ("java/a/Sub.java", 5) in places(impl["bound"])
    assert all(r["path"] != "java/a/Sub.java" for r in impl["candidates"])


def test_typescript_csharp_and_cpp_dispatch(refs: Any) -> None:
    square = refs("Square.area")
    assert places(square["dispatch"]) == [("ts/repo.ts", 6)]  # this.area() in Shape
    shape = refs("Shape.area")
    assert ("ts/square.ts", 5) in places(shape["bound"])  # super.area()
    impl = refs("A.Impl.Run")
    assert places(impl["dispatch"]) == [("cs/Base.cs", 6)]  # Run() in Base.Go
    assert ("cs/Impl.cs", 5) in places(refs("A.Base.Run")["bound"])  # base.Run()
    cpp = refs("ns.Impl.Run")
    # b->Run() on a Base*; not Base::Run(), which names the base's own
    assert places(cpp["dispatch"]) == [("cpp/base.cc", 4)]
    assert "may run ns.Impl.Run, which overrides ns.Base.Run" in cpp["dispatch"][0]["via"]


def test_a_context_package_of_an_override_holds_the_calls_that_dispatch_to_it(
    template: tuple[Path, Path], tmp_path: Path, run_cli: Any
) -> None:
    repo, store = copy_built(template, tmp_path)
    code, out, err = run_cli(
        "--repo", str(repo), "--store", store, "--json", "context", "Impl.run", "--budget", "4000"
    )  # fmt: skip
    assert code == 0, err
    items = json.loads(out)["items"]
    callers = {i["name"]: i["why"] for i in items if i["role"] == "caller"}
    assert "calls Base.run (dispatch: self.run in class Base" in callers["Base.go"]
    assert "calls Base.run (dispatch: b is a Base" in callers["drive"]


def test_a_go_method_is_reached_through_the_interfaces_its_type_satisfies(refs: Any) -> None:
    drive = refs("Runner.Run")  # an interface's method is a definition its calls bind to
    assert places(drive["bound"]) == [("go/run/run.go", 32)]
    assert places(refs("Namer.Name")["bound"]) == [("go/run/run.go", 31)]  # embedded
    server = refs("Server.Run")
    # Runner (Run, and Name through Namer) and RunCloser (io.Closer is the
    # standard library's Close): Server has them; not Stopper (no Stop), nor
    # Stream (pkg.Unknown's methods are unseen)
    assert places(server["dispatch"]) == [("go/run/run.go", 32), ("go/run/run.go", 36)]
    assert "may run Server.Run, which implements Runner.Run" in server["dispatch"][0]["via"]


def test_a_python_method_is_reached_through_the_protocols_its_class_satisfies(refs: Any) -> None:
    job = refs("Job.run")
    # r.run() on a Runner; not n.run() on Named2, a class Job does not derive from
    assert places(job["dispatch"]) == [("py/proto.py", 31)]
    assert "may run Job.run, which implements Runner.run" in job["dispatch"][0]["via"]
    assert refs("Half.run")["dispatch"] == []  # Half has no name(): not a Runner


def test_a_rust_method_is_reached_through_its_trait(refs: Any) -> None:
    # `use shapes::Shape` from a module of the crate (no `crate::`), then
    # `&dyn Shape` and `T: Shape`; `T: Shape + Clone` could be either's
    trait = refs("Shape.area")  # TypeScript's Shape.area too: the Rust rows
    rust = [r for r in trait["bound"] if r["path"].startswith("rs/")]
    assert places(rust) == [("rs/src/total.rs", 4), ("rs/src/total.rs", 8)]
    tile = refs("Tile.area")
    assert places(tile["dispatch"]) == [("rs/src/total.rs", 4), ("rs/src/total.rs", 8)]
    assert "may run Tile.area, which implements Shape.area" in tile["dispatch"][0]["via"]
