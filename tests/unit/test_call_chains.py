"""A call on what another call returns (``new Retrofit.Builder().baseUrl(u)
.build().create()``, ``q.self().create()``): each step through the return
type its method declares, in Java, Kotlin, C# and TypeScript; a nested
class named bare inside its class (``Builder`` in ``Retrofit``) is that
class."""

from __future__ import annotations

import pytest

from freshindex.indexer import chains
from tests.linked import linked

CASES = {
    "java": (
        "src/p/Retrofit.java",
        """\
package p;
public class Retrofit {
  public static final class Builder {
    public Builder baseUrl(String s) { return this; }
    public Builder add(int x) { return this; }
    public Retrofit build() { return new Retrofit(); }
  }
  public int create() { return 1; }
  public Retrofit self() { return this; }
  void run() {
    Retrofit r = new Retrofit.Builder().baseUrl("x").add(1).build();
    r.create();
    new Retrofit.Builder().baseUrl("x").add(1).build().create();
    new Retrofit().self().create();
  }
}
""",
    ),
    "kotlin": (
        "src/p/Retrofit.kt",
        """\
package p
class Retrofit {
  class Builder {
    fun baseUrl(s: String): Builder { return this }
    fun add(x: Int): Builder = this
    fun build(): Retrofit = Retrofit()
  }
  fun create(): Int = 1
  fun self(): Retrofit = this
}
fun run() {
  val r = Retrofit.Builder().baseUrl("x").add(1).build()
  r.create()
  Retrofit.Builder().baseUrl("x").add(1).build().create()
  Retrofit().self().create()
}
""",
    ),
    "csharp": (
        "src/Retrofit.cs",
        """\
namespace P {
public class Retrofit {
  public class Builder {
    public Builder BaseUrl(string s) { return this; }
    public Builder Add(int x) { return this; }
    public Retrofit Build() { return new Retrofit(); }
  }
  public int Create() { return 1; }
  public Retrofit Self() { return this; }
  void Run() {
    var r = new Retrofit.Builder().BaseUrl("x").Add(1).Build();
    r.Create();
    new Retrofit.Builder().BaseUrl("x").Add(1).Build().Create();
    new Retrofit().Self().Create();
  }
}
}
""",
    ),
    "typescript": (
        "src/r.ts",
        """\
export class Builder {
  baseUrl(s: string): Builder { return this }
  add(x: number): Builder { return this }
  build(): Retrofit { return new Retrofit() }
}
export class Retrofit {
  create(): number { return 1 }
  self(): Retrofit { return this }
}
function run() {
  const r = new Builder().baseUrl("x").add(1).build()
  r.create()
  new Builder().baseUrl("x").add(1).build().create()
  new Retrofit().self().create()
}
""",
    ),
}


@pytest.mark.parametrize("language", sorted(CASES))
def test_each_call_of_a_chain_binds_through_what_the_last_returned(language: str) -> None:
    path, source = CASES[language]
    calls = [
        (e["target"].lower(), link.binding, link.symbol and link.symbol["qualname"].split(".")[-2:])
        for e, link in linked({path: source}, language)
        if e["kind"] == "call" and e["target"].lower() in ("add", "build", "create")
    ]
    assert calls and all(binding == "bound" for _name, binding, _q in calls), calls
    reached = {name: where for name, _b, where in calls}
    assert [s.lower() for s in reached["add"]] == ["builder", "add"]
    assert [s.lower() for s in reached["create"]] == ["retrofit", "create"]


LONG_CHAINS = {
    "java": (
        "T.java",
        "class T { void r(T x) { x" + ".a()" * 900 + "; } T a() { return this; } }\n",
    ),
    "csharp": ("T.cs", "class T { void R(T x) { x" + ".A()" * 900 + "; } }\n"),
    "go": ("t.go", "package t\nfunc r() { x()" + ".A()" * 900 + " }\n"),
    "rust": ("t.rs", "fn r() { x()" + ".a()" * 900 + "; }\n"),
    "php": ("t.php", "<?php\nfunction r() { $x" + "->a()" * 900 + "; }\n"),
}


@pytest.mark.parametrize("language", sorted(LONG_CHAINS))
def test_a_chain_hundreds_of_calls_long_is_read_up_to_a_bound(language: str) -> None:
    path, source = LONG_CHAINS[language]
    calls = [link.binding for e, link in linked({path: source}, language) if e["kind"] == "call"]
    assert len(calls) >= 900 and calls[-1] != "bound"  # past chains.MAX_STEPS: no claim


@pytest.mark.parametrize("language", ["java", "csharp"])
def test_new_of_a_nested_class_names_it_through_its_outer_class(language: str) -> None:
    path, source = CASES[language]
    made = [
        (link.binding, link.symbol and link.symbol["qualname"].split(".")[-2:])
        for e, link in linked({path: source}, language)
        if e["kind"] == "call" and e["target"] == "Builder"
    ]
    assert made == [("bound", ["Retrofit", "Builder"])] * 2


def test_new_of_a_class_outside_the_tree_by_its_package_is_external() -> None:
    source = "class T { void r() { new java.util.ArrayList<String>(); } }\n"
    made = [(e["target"], e["binding"]) for e, _l in linked({"T.java": source}, "java")]
    assert made == [("ArrayList", "external")]


def test_a_ruby_call_on_what_new_makes_binds_to_the_class() -> None:
    source = (
        "class Repo\n  def save; end\nend\nclass Svc\n  def run\n    Repo.new.save\n  end\nend\n"
    )
    saved = [
        (link.binding, link.symbol and link.symbol["qualname"])
        for e, link in linked({"lib/repo.rb": source}, "ruby")
        if e["kind"] == "call" and e["target"] == "save"
    ]
    assert saved == [("bound", "Repo.save")]


def test_python_type_of_self_and_its_class_make_the_methods_class() -> None:
    source = """\
class Repo:
    def save(self): pass
    def clone(self):
        c = type(self)()
        c.save()
        self.__class__().save()
        type(self).save(c)
"""
    saved = [
        link.binding
        for e, link in linked({"m.py": source})
        if e["kind"] == "call" and e["target"] == "save"
    ]
    assert saved == ["bound", "bound", "bound"]


def test_go_calls_on_what_a_call_returns() -> None:
    source = """\
package srv
type Builder struct{}
type Server struct{}
func NewBuilder() *Builder { return &Builder{} }
func (b *Builder) Port(p int) *Builder { return b }
func (b *Builder) Build() *Server { return &Server{} }
func (s *Server) Run() {}
func use(b *Builder) {
	NewBuilder().Port(1).Build().Run()
	s := NewBuilder().Port(2).Build()
	s.Run()
	b.Port(3).Build().Run()
}
"""
    files = {"go.mod": "module example.com/app\n", "srv/s.go": source}
    reached = [
        (e["start_line"], e["target"], link.symbol and link.symbol["qualname"])
        for e, link in linked(files, "go")
        if e["kind"] == "call"
        and e["start_line"] > 8
        and e["target"] != "NewBuilder"
        and link.binding == "bound"
    ]
    assert reached == [
        (9, "Port", "Builder.Port"),
        (9, "Build", "Builder.Build"),
        (9, "Run", "Server.Run"),
        (10, "Port", "Builder.Port"),
        (10, "Build", "Builder.Build"),
        (11, "Run", "Server.Run"),
        (12, "Port", "Builder.Port"),
        (12, "Build", "Builder.Build"),
        (12, "Run", "Server.Run"),
    ]


def test_rust_calls_on_what_a_call_returns() -> None:
    source = """\
pub struct Builder;
pub struct Server;
impl Builder {
    pub fn new() -> Self { Builder }
    pub fn port(self, p: u16) -> Builder { self }
    pub fn build(self) -> Server { Server }
}
impl Server { pub fn run(&self) {} }
fn use_it() {
    Builder::new().port(1).build().run();
    let s = Builder::new().port(2).build();
    s.run();
}
"""
    reached = [
        (e["start_line"], e["target"], link.symbol and link.symbol["qualname"])
        for e, link in linked({"src/lib.rs": source}, "rust")
        if e["kind"] == "call" and e["start_line"] > 9 and e["target"] != "new"
    ]
    assert reached == [
        (10, "port", "Builder.port"),
        (10, "build", "Builder.build"),
        (10, "run", "Server.run"),
        (11, "port", "Builder.port"),
        (11, "build", "Builder.build"),
        (12, "run", "Server.run"),
    ]


def test_php_calls_on_what_a_call_returns() -> None:
    source = """\
<?php
namespace App;
class Builder {
  public function port(int $p): Builder { return $this; }
  public function build(): Server { return new Server(); }
}
class Server { public function run() {} }
function useIt() {
  (new Builder())
    ->port(1)->build()->run();
  $s = (new Builder())->port(2)->build();
  $s->run();
}
"""
    reached = [
        (e["target"], link.symbol and link.symbol["qualname"], e["via"].split(" holds")[0])
        for e, link in linked({"src/B.php": source}, "php")
        if e["kind"] == "call" and e["target"] in ("build", "run")
    ]
    assert reached == [
        ("build", "App.Builder.build", "(new Builder())->port(1)"),
        ("run", "App.Server.run", "(new Builder())->port(1)->build()"),
        ("build", "App.Builder.build", "(new Builder())->port(2)"),
        ("run", "App.Server.run", "$s"),
    ]


def test_a_method_an_outside_base_gives_makes_the_rest_of_the_chain_external() -> None:
    source = """\
import httpx
class TestClient(httpx.Client):
    def __enter__(self):
        self.stack = make_stack()
        return self
def test(client: TestClient):
    client.get("/").json()
    client.stack.close()
"""
    calls = {
        e["target"]: link.binding
        for e, link in linked({"m.py": source})
        if e["kind"] == "call" and e["target"] in ("get", "json", "close")
    }
    # get() is httpx's, so what it returns is; an attribute set in a method
    # (`stack`) may hold anything: not judged
    assert calls == {"get": "external", "json": "external", "close": "candidate"}


def test_csharp_await_of_a_task_gives_what_the_task_holds() -> None:
    source = """\
using System.Threading.Tasks;
namespace P {
public class Repo {
  public void Save() {}
  public Task<Repo> OpenAsync() { return null; }
}
class T {
  private readonly Repo _repo;
  async Task Run() {
    var r = await _repo.OpenAsync();
    r.Save();
    (await _repo.OpenAsync()).Save();
  }
}
}
"""
    saved = [
        (link.binding, link.symbol and link.symbol["qualname"])
        for e, link in linked({"src/R.cs": source}, "csharp")
        if e["kind"] == "call" and e["target"] == "Save"
    ]
    assert saved == [("bound", "P.Repo.Save")] * 2


def test_unwind_gives_the_start_and_the_methods_in_the_order_they_run() -> None:
    # a chain as (receiver, method) steps: 3 -> 2 -> 1 -> 0, 0 starts it
    def step(n: int) -> tuple[int | None, str] | None:
        return (n - 1, f"m{n}") if n > 0 else None

    assert chains.unwind(3, step) == (0, ["m1", "m2", "m3"])
    assert chains.unwind(chains.MAX_STEPS + 1, step) is None
    assert chains.unwind(2, lambda n: (None, "make")) == (None, ["make"])  # no receiver


def test_python_annotated_is_the_type_it_annotates() -> None:
    source = """\
from typing import Annotated, Optional
import typing
class Session:
    def get(self, k): pass
def dep(): pass
def f(s: Annotated[Session, Depends(dep)], t: typing.Annotated[Session, 1],
      u: Optional[Annotated[Session, 2]]):
    s.get(1)
    t.get(2)
    u.get(3)
def g(xs: Annotated[list[Session], 1]):
    for x in xs:
        x.get(4)
"""
    got = [
        link.binding
        for e, link in linked({"m.py": source})
        if e["kind"] == "call" and e["target"] == "get"
    ]
    assert got == ["bound"] * 4


def test_go_a_chain_steps_into_a_named_type_that_is_not_a_struct() -> None:
    source = """\
package gin
type Error struct{}
type errorMsgs []*Error
func (a errorMsgs) ByType(t int) errorMsgs { return a }
func (a errorMsgs) Errors() []string { return nil }
func use(errs errorMsgs) {
	errs.ByType(1).Errors()
}
"""
    files = {"go.mod": "module example.com/gin\n", "gin/errors.go": source}
    reached = [
        (e["target"], link.binding, link.symbol and link.symbol["qualname"])
        for e, link in linked(files, "go")
        if e["kind"] == "call" and e["start_line"] == 7
    ]
    assert reached == [
        ("ByType", "bound", "errorMsgs.ByType"),
        ("Errors", "bound", "errorMsgs.Errors"),
    ]
