"""References through values: one small program per form, each with the call
edges Python's semantics give it (indexer/flow_python.py, query/link.py).

Each case is a program (one file ``m.py``, or several) and the exact set of
bound call edges it must produce: ``caller -> callee`` by qualname,
``<module>`` for module-level code, ``path::`` before names outside ``m.py``.
The sets are exact, so a case checks precision as well as recall. The edges
were written from what the code does when run, not from any tool's output.

Conventions: code at the top of a module is called by ``<module>`` (the
caller of ``INSTANCE = C()`` is the module: a constant holds no code);
calling a class is an edge to the class (``refs C.__init__``
lists it too, query/references.py); builtins are external, not edges; where
a name may hold two values on different paths (branches), both are edges.

Over 400 lines as one concept: a table of small programs, one per form of value flow.
"""

from __future__ import annotations

import textwrap
from typing import Any

import pytest

from freshindex.indexer import bind_python
from freshindex.query.link import table_linker
from tests.linked import bound_calls, call_graph, linked, rows_of

Case = tuple[str | dict[str, str], set[str]]

ASSIGNMENTS: dict[str, Case] = {
    "class_of_a_type_annotation": (  # the class assigned says which: a subclass
        "class A:\n    def go(self): pass\nclass B(A):\n    def go(self): pass\n"
        "class R:\n    made: type[A] = B\n    other: type[A] | None = None\n"
        "    def main(self):\n        self.made().go()\n        self.other().go()\n",
        {"R.main -> B", "R.main -> B.go", "R.main -> A", "R.main -> A.go"},
    ),
    "alias": ("def f(): pass\ndef main():\n    a = f\n    a()\n", {"main -> f"}),
    "chained": (
        "def f(): pass\ndef main():\n    a = b = f\n    a()\n    b()\n",
        {"main -> f"},
    ),
    "tuple": (
        "def f(): pass\ndef g(): pass\ndef main():\n    a, b = f, g\n    a()\n    b()\n",
        {"main -> f", "main -> g"},
    ),
    "list_pattern": (
        "def f(): pass\ndef g(): pass\ndef main():\n    [a, b] = [f, g]\n    b()\n",
        {"main -> g"},
    ),
    "starred_before": (
        "def f(): pass\ndef g(): pass\ndef h(): pass\n"
        "def main():\n    a, *rest = f, g, h\n    a()\n",
        {"main -> f"},
    ),
    "starred_after": (
        "def f(): pass\ndef g(): pass\ndef h(): pass\n"
        "def main():\n    *rest, z = f, g, h\n    z()\n",
        {"main -> h"},
    ),
    "branches": (
        "def f(): pass\ndef g(): pass\n"
        "def main(c):\n    if c:\n        a = f\n    else:\n        a = g\n    a()\n",
        {"main -> f", "main -> g"},
    ),
    "conditional_expression": (
        "def f(): pass\ndef g(): pass\ndef main(c):\n    a = f if c else g\n    a()\n",
        {"main -> f", "main -> g"},
    ),
    "boolean_or": (
        "def f(): pass\ndef g(): pass\ndef main(c):\n    a = c and f or g\n    a()\n",
        {"main -> f", "main -> g"},
    ),
    "walrus": (
        "def f(): pass\ndef main():\n    if (a := f):\n        a()\n",
        {"main -> f"},
    ),
    "module_alias_used_in_function": (
        "def f(): pass\na = f\ndef main():\n    a()\n",
        {"main -> f"},
    ),
    "global_set_elsewhere": (
        "def f(): pass\nh = None\ndef setup():\n    global h\n    h = f\ndef main():\n    h()\n",
        {"main -> f"},
    ),
    "nonlocal": (
        "def f(): pass\n"
        "def outer():\n    a = None\n    def inner():\n        nonlocal a\n        a = f\n"
        "    inner()\n    a()\n",
        {"outer -> outer.inner", "outer -> f"},
    ),
    "bound_method_alias": (
        "class C:\n    def m(self): pass\ndef main():\n    c = C()\n    run = c.m\n    run()\n",
        {"main -> C", "main -> C.m"},
    ),
    "class_alias": (
        "class C:\n    def m(self): pass\ndef main():\n    K = C\n    K().m()\n",
        {"main -> C", "main -> C.m"},
    ),
    "alias_of_alias": (
        "def f(): pass\ndef main():\n    a = f\n    b = a\n    b()\n",
        {"main -> f"},
    ),
    "parenthesized_callee": (
        "def f(): pass\ndef main():\n    a = f\n    (a)()\n",
        {"main -> f"},
    ),
    "annotated_assignment": (
        "def f(): pass\ndef main():\n    a: object = f\n    a()\n",
        {"main -> f"},
    ),
    "module_level_call": ("def f(): pass\na = f\na()\n", {"<module> -> f"}),
}

RETURNS: dict[str, Case] = {
    "tuple_positions": (  # each position of what a call returns, not the others
        "from typing import Tuple\n"
        "class A:\n    def go(self): pass\nclass B:\n    def stop(self): pass\n"
        "def pair():\n    return A(), B()\n"
        "def typed() -> Tuple[A, B]:\n    return make()\n"
        "def main():\n    a, b = pair()\n    a.go()\n    b.stop()\n"
        "    x, y = typed()\n    x.go()\n    y.stop()\n"
        "    pair()[1].stop()\n    first, *rest = pair()\n    first.go()\n"
        "class C:\n    def __init__(self):\n        self.a, self.b = typed()\n"
        "    def run(self):\n        self.b.stop()\n",
        {
            "pair -> A",
            "pair -> B",
            "main -> pair",
            "main -> typed",
            "main -> A.go",
            "main -> B.stop",
            "C.__init__ -> typed",
            "C.run -> B.stop",
        },
    ),
    "class_of_a_type_annotation": (
        "class V:\n    def check(self): pass\n"
        "def create() -> type[V]:\n    return make()\n"
        "def main():\n    Made = create()\n    Made().check()\n",
        {"main -> create", "main -> V", "main -> V.check"},
    ),
    "class_of_a_type_annotation_beside_the_returned_class": (  # the annotation names a base
        "class V:\n    def check(self): pass\n"
        "def create() -> type[V]:\n    class W(V):\n        def check(self): pass\n    return W\n"
        "def main():\n    create()().check()\n",
        {
            "main -> create",
            "main -> V",
            "main -> V.check",
            "main -> create.W",
            "main -> create.W.check",
        },
    ),
    "generic_class_annotation": (
        {
            "ds.py": "import typing as t\nK = t.TypeVar('K')\n"
            "class MultiDict(t.Generic[K]):\n    def get(self, k): pass\n",
            "m.py": "import ds\ndef parse() -> ds.MultiDict[str]:\n    return load()\n"
            "def main(d: ds.MultiDict[str]):\n    parse().get(1)\n    d.get(2)\n",
        },
        {"main -> parse", "main -> ds.py::MultiDict.get"},
    ),
    "generic_alias_beside_the_assigned_value": (
        "import typing as t\nclass A:\n    def run(self): pass\nclass B:\n    def run(self): pass\n"
        "Either = t.Union[A, B]\n"
        "class S:\n    def __init__(self):\n        self.x: Either[int] = A()\n"
        "    def go(self):\n        self.x.run()\n",
        {"S.__init__ -> A", "S.go -> A.run"},
    ),
    "returned_function": (
        "def make():\n    def inner(): pass\n    return inner\ndef main():\n    make()()\n",
        {"main -> make", "main -> make.inner"},
    ),
    "factory_instance": (
        "class C:\n    def run(self): pass\n"
        "def factory():\n    return C()\ndef main():\n    x = factory()\n    x.run()\n",
        {"factory -> C", "main -> factory", "main -> C.run"},
    ),
    "factory_class": (
        "class C: pass\ndef get_cls():\n    return C\ndef main():\n    K = get_cls()\n    K()\n",
        {"main -> get_cls", "main -> C"},
    ),
    "return_of_return": (
        "class C:\n    def m(self): pass\n"
        "def b():\n    return C()\ndef a():\n    return b()\ndef main():\n    a().m()\n",
        {"b -> C", "a -> b", "main -> a", "main -> C.m"},
    ),
    "recursive_factory": (
        "def f():\n    return f\ndef main():\n    f()()\n",
        {"main -> f"},
    ),
    "annotation": (
        "class C:\n    def m(self): pass\ndef get() -> C:\n    ...\ndef main():\n    get().m()\n",
        {"main -> get", "main -> C.m"},
    ),
    "optional_annotation": (
        "from typing import Optional\nclass C:\n    def m(self): pass\n"
        "def get() -> Optional[C]:\n    ...\ndef main():\n    get().m()\n",
        {"main -> get", "main -> C.m"},
    ),
    "union_none_annotation": (
        "class C:\n    def m(self): pass\n"
        "def get() -> C | None:\n    ...\ndef main():\n    x = get()\n    x.m()\n",
        {"main -> get", "main -> C.m"},
    ),
    "self_annotation": (
        "from typing import Self\nclass C:\n    def me(self) -> Self:\n        ...\n"
        "    def m(self): pass\ndef main():\n    C().me().m()\n",
        {"main -> C", "main -> C.me", "main -> C.m"},
    ),
    "fluent_return_self": (
        "class Q:\n    def where(self):\n        return self\n    def all(self): pass\n"
        "def main():\n    Q().where().where().all()\n",
        {"main -> Q", "main -> Q.where", "main -> Q.all"},
    ),
    "classmethod_factory": (
        "class C:\n    @classmethod\n    def create(cls):\n        return cls()\n"
        "    def m(self): pass\ndef main():\n    C.create().m()\n",
        {"C.create -> C", "main -> C.create", "main -> C.m"},
    ),
    "staticmethod_factory": (
        "class C:\n    @staticmethod\n    def make():\n        return C()\n"
        "    def m(self): pass\ndef main():\n    C.make().m()\n",
        {"C.make -> C", "main -> C.make", "main -> C.m"},
    ),
    "property_getter": (
        "class Client:\n    def send(self): pass\n"
        "class S:\n    @property\n    def client(self):\n        return Client()\n"
        "    def run(self):\n        self.client.send()\n",
        {"S.client -> Client", "S.run -> Client.send"},
    ),
    "identity_function": (
        "def f(): pass\ndef ident(x):\n    return x\ndef main():\n    ident(f)()\n",
        {"main -> ident", "main -> f"},
    ),
    "two_returns": (
        "def f(): pass\ndef g(): pass\n"
        "def pick(c):\n    if c:\n        return f\n    return g\ndef main():\n    pick(1)()\n",
        {"main -> pick", "main -> f", "main -> g"},
    ),
    "method_returns_other_class": (
        "class Child:\n    def m(self): pass\n"
        "class Parent:\n    def child(self):\n        return Child()\n"
        "def main():\n    Parent().child().m()\n",
        {"Parent.child -> Child", "main -> Parent", "main -> Parent.child", "main -> Child.m"},
    ),
    "await_result": (
        "class C:\n    def m(self): pass\n"
        "async def make():\n    return C()\nasync def main():\n    x = await make()\n    x.m()\n",
        {"make -> C", "main -> make", "main -> C.m"},
    ),
    "returns_module_function": (
        "def helper(): pass\ndef get():\n    return helper\ndef main():\n    get()()\n",
        {"main -> get", "main -> helper"},
    ),
    "returned_instance_stored": (
        "class C:\n    def m(self): pass\n"
        "def make():\n    c = C()\n    return c\ndef main():\n    make().m()\n",
        {"make -> C", "main -> make", "main -> C.m"},
    ),
    "nested_factory_returns_class_instance": (
        "class C:\n    def m(self): pass\n"
        "def outer():\n    def build():\n        return C()\n    return build\n"
        "def main():\n    outer()().m()\n",
        {"outer.build -> C", "main -> outer", "main -> outer.build", "main -> C.m"},
    ),
}

ATTRIBUTES: dict[str, Case] = {
    "set_in_init": (
        "class Client:\n    def send(self): pass\n"
        "class S:\n    def __init__(self):\n        self.client = Client()\n"
        "    def run(self):\n        self.client.send()\n",
        {"S.__init__ -> Client", "S.run -> Client.send"},
    ),
    "from_typed_parameter": (
        "class Client:\n    def send(self): pass\n"
        "class S:\n    def __init__(self, client: Client):\n        self.client = client\n"
        "    def run(self):\n        self.client.send()\n",
        {"S.run -> Client.send"},
    ),
    "from_constructor_argument": (
        "class Client:\n    def send(self): pass\n"
        "class S:\n    def __init__(self, client):\n        self.client = client\n"
        "    def run(self):\n        self.client.send()\n"
        "def main():\n    S(Client()).run()\n",
        {"main -> S", "main -> Client", "main -> S.run", "S.run -> Client.send"},
    ),
    "set_in_base_init": (
        "class Client:\n    def send(self): pass\n"
        "class Base:\n    def __init__(self):\n        self.client = Client()\n"
        "class S(Base):\n    def run(self):\n        self.client.send()\n",
        {"Base.__init__ -> Client", "S.run -> Client.send"},
    ),
    "class_attribute": (
        "class Client:\n    def send(self): pass\n"
        "class S:\n    client = Client()\n    def run(self):\n        self.client.send()\n",
        {"S -> Client", "S.run -> Client.send"},
    ),
    "dataclass_field": (
        "from dataclasses import dataclass\nclass Client:\n    def send(self): pass\n"
        "@dataclass\nclass S:\n    client: Client\n    def run(self):\n        self.client.send()\n",
        {"S.run -> Client.send"},
    ),
    "function_in_attribute": (
        "def f(): pass\nclass S:\n    def __init__(self):\n        self.cb = f\n"
        "    def run(self):\n        self.cb()\n",
        {"S.run -> f"},
    ),
    "attribute_from_outside": (
        "class Client:\n    def send(self): pass\n"
        "class S:\n    def __init__(self):\n        self.client = Client()\n"
        "def main():\n    s = S()\n    s.client.send()\n",
        {"S.__init__ -> Client", "main -> S", "main -> Client.send"},
    ),
    "nested_attributes": (
        "class B:\n    def m(self): pass\nclass A:\n    def __init__(self):\n        self.b = B()\n"
        "class S:\n    def __init__(self):\n        self.a = A()\n"
        "    def run(self):\n        self.a.b.m()\n",
        {"A.__init__ -> B", "S.__init__ -> A", "S.run -> B.m"},
    ),
    "set_outside_init": (
        "class Client:\n    def send(self): pass\n"
        "class S:\n    def connect(self):\n        self.client = Client()\n"
        "    def run(self):\n        self.client.send()\n",
        {"S.connect -> Client", "S.run -> Client.send"},
    ),
    "two_classes_in_one_attribute": (
        "class A:\n    def send(self): pass\nclass B:\n    def send(self): pass\n"
        "class S:\n    def __init__(self, c):\n        if c:\n            self.x = A()\n"
        "        else:\n            self.x = B()\n    def run(self):\n        self.x.send()\n",
        {"S.__init__ -> A", "S.__init__ -> B", "S.run -> A.send", "S.run -> B.send"},
    ),
    "annotated_self_attribute": (
        "class Client:\n    def send(self): pass\n"
        "class S:\n    def __init__(self):\n        self.client: Client = make()\n"
        "    def run(self):\n        self.client.send()\n",
        {"S.run -> Client.send"},
    ),
    "attribute_of_returned_instance": (
        "class Client:\n    def send(self): pass\n"
        "class S:\n    def __init__(self):\n        self.client = Client()\n"
        "def make():\n    return S()\ndef main():\n    make().client.send()\n",
        {"S.__init__ -> Client", "make -> S", "main -> make", "main -> Client.send"},
    ),
    "property_of_property": (
        "class C:\n    def m(self): pass\nclass B:\n    @property\n    def c(self) -> C:\n        ...\n"
        "class A:\n    @property\n    def b(self) -> B:\n        ...\n"
        "def main(a: A):\n    a.b.c.m()\n",
        {"main -> C.m"},
    ),
    "annotation_is_the_type": (
        "class Base:\n    def m(self): pass\nclass Sub(Base):\n    def m(self): pass\n"
        "def make():\n    return Sub()\n"
        "class S:\n    def __init__(self):\n        self.t: Base = make()\n"
        "    def run(self):\n        self.t.m()\n",
        {"make -> Sub", "S.__init__ -> make", "S.run -> Base.m"},
    ),
    "cls_attribute_in_classmethod": (
        "def f(): pass\nclass S:\n    handler = f\n    @classmethod\n    def run(cls):\n"
        "        cls.handler()\n",
        {"S.run -> f"},
    ),
}

PARAMETERS: dict[str, Case] = {
    "class_of_a_type_annotation": (
        "from typing import Type\nclass A:\n    def go(self): pass\n"
        "def main(cls: type[A], other: Type[A] | None = None):\n    cls().go()\n    other().go()\n",
        {"main -> A", "main -> A.go"},
    ),
    "callback": (
        "def handler(): pass\ndef apply(cb):\n    cb()\ndef main():\n    apply(handler)\n",
        {"apply -> handler", "main -> apply"},
    ),
    "keyword_callback": (
        "def handler(): pass\ndef apply(x, cb):\n    cb()\ndef main():\n    apply(1, cb=handler)\n",
        {"apply -> handler", "main -> apply"},
    ),
    "default_callback": (
        "def handler(): pass\ndef apply(cb=handler):\n    cb()\ndef main():\n    apply()\n",
        {"apply -> handler", "main -> apply"},
    ),
    "two_callers": (
        "def f(): pass\ndef g(): pass\ndef apply(cb):\n    cb()\n"
        "def main():\n    apply(f)\n    apply(g)\n",
        {"apply -> f", "apply -> g", "main -> apply"},
    ),
    "method_parameter": (
        "def handler(): pass\nclass S:\n    def run(self, cb):\n        cb()\n"
        "    def main(self):\n        self.run(handler)\n",
        {"S.run -> handler", "S.main -> S.run"},
    ),
    "constructor_parameter_stored": (
        "def handler(): pass\nclass S:\n    def __init__(self, cb):\n        self.cb = cb\n"
        "    def fire(self):\n        self.cb()\ndef main():\n    S(handler).fire()\n",
        {"main -> S", "main -> S.fire", "S.fire -> handler"},
    ),
    "typed_parameter": (
        "class Client:\n    def send(self): pass\ndef use(c: Client):\n    c.send()\n",
        {"use -> Client.send"},
    ),
    "typed_parameter_assigned_from_itself": (  # tomlkit: delim = delim.toggle()
        "class S:\n    def toggle(self) -> 'S': pass\n    def single(self): pass\n"
        "def parse(delim: S):\n    delim.single()\n    delim = delim.toggle()\n"
        "    delim.single()\n",
        {"parse -> S.single", "parse -> S.toggle"},
    ),
    "typed_parameter_assigned_another_class": (  # either, as the pass is flow-insensitive
        "class A:\n    def go(self): pass\nclass B:\n    def go(self): pass\n"
        "def main(x: A):\n    x = B()\n    x.go()\n",
        {"main -> A.go", "main -> B", "main -> B.go"},
    ),
    "any_parameter_is_unannotated": (  # `Any` says nothing: what is passed does
        "from typing import Any\nclass C:\n    def go(self): pass\n"
        "def use(x: Any, y: object):\n    x.go()\n    y.go()\n"
        "def main():\n    use(C(), C())\n",
        {"use -> C.go", "main -> use", "main -> C"},
    ),
    "map_builtin": (
        "def f(x): pass\ndef main(xs):\n    list(map(f, xs))\n",
        {"main -> f"},
    ),
    "filter_builtin": (
        "def keep(x): pass\ndef main(xs):\n    return list(filter(keep, xs))\n",
        {"main -> keep"},
    ),
    "nested_function_passed": (
        "def apply(cb):\n    cb()\ndef outer():\n    def inner(): pass\n    apply(inner)\n",
        {"apply -> outer.inner", "outer -> apply"},
    ),
    "through_two_levels": (
        "def f(): pass\ndef b(cb):\n    cb()\ndef a(cb):\n    b(cb)\ndef main():\n    a(f)\n",
        {"b -> f", "a -> b", "main -> a"},
    ),
    "instance_argument": (
        "class Client:\n    def send(self): pass\ndef use(c):\n    c.send()\n"
        "def main():\n    use(Client())\n",
        {"use -> Client.send", "main -> use", "main -> Client"},
    ),
    "class_argument": (
        "class C:\n    def m(self): pass\ndef build(k):\n    return k()\n"
        "def main():\n    build(C).m()\n",
        {"build -> C", "main -> build", "main -> C.m"},
    ),
    "keyword_only_parameter": (
        "def f(): pass\ndef apply(*, cb):\n    cb()\ndef main():\n    apply(cb=f)\n",
        {"apply -> f", "main -> apply"},
    ),
    # calls made through a value pass their arguments on too
    "callee_through_alias": (
        "def f(): pass\ndef apply(cb):\n    cb()\ndef main():\n    run = apply\n    run(f)\n",
        {"apply -> f", "main -> apply"},
    ),
    "keyword_through_alias": (
        "def f(): pass\ndef apply(cb):\n    cb()\ndef main():\n    run = apply\n    run(cb=f)\n",
        {"apply -> f", "main -> apply"},
    ),
    "parameter_called_with_a_callback": (
        # the call in `outer` comes before the one that gives `run` its value
        "def f(): pass\ndef inner(cb):\n    cb()\ndef outer(run):\n    run(f)\n"
        "def main():\n    outer(inner)\n",
        {"inner -> f", "outer -> inner", "main -> outer"},
    ),
    "bound_methods_as_arguments": (
        "class C:\n    def done(self): pass\n    def step(self, then):\n        then()\n"
        "    def run(self, first, then):\n        first(then)\n"
        "def main():\n    c = C()\n    c.run(c.step, c.done)\n",
        {"main -> C", "main -> C.run", "C.run -> C.step", "C.step -> C.done"},
    ),
    "class_through_alias": (
        "def f(): pass\nclass S:\n    def __init__(self, cb):\n        cb()\n"
        "def main():\n    make = S\n    make(f)\n",
        {"main -> S", "S.__init__ -> f"},
    ),
    "unknown_callee_routes_nothing": (
        "def f(): pass\ndef main(run):\n    run(f)\n",
        set(),
    ),
}

CONTAINERS: dict[str, Case] = {
    "appended_elements": (  # append, add, insert; extend by its argument's elements
        "class U:\n    def save(self): pass\nclass G:\n    def join(self): pass\n"
        "def main():\n    xs = []\n    xs.append(U())\n    xs.insert(0, G())\n"
        "    for x in xs:\n        x.save()\n    xs[0].join()\n"
        "    ys = set()\n    ys.add(U())\n    zs = []\n    zs.extend(ys)\n"
        "    for z in zs:\n        z.save()\n",
        {"main -> U", "main -> G", "main -> U.save", "main -> G.join"},
    ),
    "appended_to_an_attribute": (  # any method's, any file's iteration
        {
            "m.py": "class U:\n    def save(self): pass\n"
            "class Reg:\n    def __init__(self):\n        self.users = []\n"
            "    def add(self, u: U):\n        self.users.append(u)\n"
            "    def each(self):\n        for u in self.users:\n            u.save()\n",
            "n.py": "from m import Reg\ndef main(r: Reg):\n    for u in r.users:\n        u.save()\n",
        },
        {"Reg.each -> U.save", "n.py::main -> U.save"},
    ),
    "comprehension_elements": (
        "class U:\n    def save(self): pass\ndef main(rows):\n"
        "    us = [U() for r in rows]\n    for u in us:\n        u.save()\n"
        "    for v in (U() for r in rows):\n        v.save()\n",
        {"main -> U", "main -> U.save"},
    ),
    "values_of_a_dict_given_items": (
        "class U:\n    def save(self): pass\ndef main():\n    d = {}\n    d['a'] = U()\n"
        "    for v in d.values():\n        v.save()\n",
        {"main -> U", "main -> U.save"},
    ),
    "picked_elements": (  # next(it), max(xs), min(a, b): one of them
        "class U:\n    def save(self): pass\nclass G:\n    def save(self): pass\n"
        "def main(rows):\n    us = [U() for r in rows]\n    next(iter(us)).save()\n"
        "    max(us, key=id).save()\n    min(U(), G()).save()\n",
        {"main -> U", "main -> G", "main -> U.save", "main -> G.save"},
    ),
    "partial": (  # functools.partial(f, x)() calls f
        "import functools\nfrom functools import partial\nclass U:\n    def save(self): pass\n"
        "def f(n): pass\ndef main():\n    g = functools.partial(f, 1)\n    g()\n"
        "    partial(U)().save()\n",
        {"main -> f", "main -> U", "main -> U.save"},
    ),
    "match_class_patterns": (  # the subject is an instance of the case's class
        "class U:\n    def save(self): pass\nclass G:\n    def save(self): pass\n"
        "def main(x):\n    match x:\n        case U(name='a'):\n            x.save()\n"
        "        case G() | U():\n            x.save()\n        case _:\n            x.save()\n",
        {"main -> U.save"},
    ),
    "zipped_elements": (  # each target an element of its own argument
        "class U:\n    def save(self): pass\nclass G:\n    def join(self): pass\n"
        "def main():\n    for u, g in zip([U()], [G()]):\n        u.save()\n        g.join()\n",
        {"main -> U", "main -> G", "main -> U.save", "main -> G.join"},
    ),
    "zip_shadowed": (  # a zip of the module's own is no builtin
        "class U:\n    def save(self): pass\ndef zip(a, b): return a\n"
        "def main():\n    for u, g in zip([U()], [U()]):\n        u.save()\n",
        {"main -> U", "main -> zip"},
    ),
    "element_of_sorted": (
        "class U:\n    def save(self): pass\ndef main(users: list[U]):\n"
        "    sorted(users)[0].save()\n    list(users)[-1].save()\n    sorted(users)[1:][0].save()\n",
        {"main -> U.save"},
    ),
    "generator_elements": (
        "class U:\n    def save(self): pass\ndef users():\n    yield U()\n"
        "def main():\n    for u in users():\n        u.save()\n",
        {"users -> U", "main -> users", "main -> U.save"},
    ),
    "generator_in_other_file": (
        {
            "lib.py": "class U:\n    def save(self): pass\ndef users():\n    yield U()\n",
            "m.py": "from lib import users\ndef main():\n    for u in users():\n        u.save()\n",
        },
        {"lib.py::users -> lib.py::U", "main -> lib.py::users", "main -> lib.py::U.save"},
    ),
    "yield_from": (
        "def f(): pass\ndef inner():\n    yield f\ndef outer():\n    yield from inner()\n"
        "def main():\n    for h in outer():\n        h()\n",
        {"outer -> inner", "main -> outer", "main -> f"},
    ),
    "generator_annotation_wins": (
        "from typing import Iterator\nclass A:\n    def m(self): pass\nclass B:\n    def m(self): pass\n"
        "def make() -> Iterator[A]:\n    yield B()\n"
        "def main():\n    for x in make():\n        x.m()\n",
        {"make -> B", "main -> make", "main -> A.m"},
    ),
    "dispatch_on_an_unknown_key": (  # may be any entry
        'def f(): pass\ndef g(): pass\nHANDLERS = {"a": f, "b": g}\n'
        "def main(kind):\n    HANDLERS[kind]()\n",
        {"main -> f", "main -> g"},
    ),
    "key_given_only_literals": (
        'def f(): pass\ndef g(): pass\ndef h(): pass\nd = {"a": f, "b": g, "c": h}\n'
        'def run(key="a"):\n    d[key]()\ndef main():\n    run("b")\n',
        {"run -> f", "run -> g", "main -> run"},
    ),
    "index_given_as_an_argument": (
        "def f(): pass\ndef g(): pass\nfs = [f, g]\ndef run(i):\n    fs[i]()\n"
        "def main():\n    run(1)\n",
        {"run -> g", "main -> run"},
    ),
    "dict_passed_as_a_parameter": (
        'def f(): pass\ndef run(d):\n    d["a"]()\ndef main():\n    run({"a": f})\n',
        {"run -> f", "main -> run"},
    ),
    "entry_through_an_alias": (
        'def f(): pass\ndef main():\n    d = {"a": f}\n    e = d\n    e["a"]()\n',
        {"main -> f"},
    ),
    "a_slice_is_not_an_element": (
        "def f(): pass\ndef main():\n    fs = [f]\n    fs[0:1]()\n",
        set(),
    ),
    "positions_after_a_splat_are_unknown": (
        "def f(): pass\ndef g(): pass\ndef main(xs):\n    fs = [f, *xs, g]\n"
        "    fs[0]()\n    fs[2]()\n    fs[-1]()\n",
        {"main -> f"},
    ),
    "dict_literal": (
        'def f(): pass\ndef main():\n    d = {"a": f}\n    d["a"]()\n',
        {"main -> f"},
    ),
    "dict_set_by_key": (
        'def f(): pass\ndef main():\n    d = {}\n    d["a"] = f\n    d["a"]()\n',
        {"main -> f"},
    ),
    "dict_other_key_is_not_it": (
        'def f(): pass\ndef g(): pass\ndef main():\n    d = {"a": f, "b": g}\n    d["b"]()\n',
        {"main -> g"},
    ),
    "quote_styles": (
        "def f(): pass\ndef main():\n    d = {'a': f}\n    d[\"a\"]()\n",
        {"main -> f"},
    ),
    "int_key": (
        "def f(): pass\ndef main():\n    d = {1: f}\n    d[1]()\n",
        {"main -> f"},
    ),
    "list_index": (
        "def f(): pass\ndef g(): pass\ndef main():\n    fs = [f, g]\n    fs[1]()\n",
        {"main -> g"},
    ),
    "negative_index": (
        "def f(): pass\ndef g(): pass\ndef main():\n    fs = [f, g]\n    fs[-1]()\n",
        {"main -> g"},
    ),
    "tuple_index": (
        "def f(): pass\ndef g(): pass\ndef main():\n    fs = (f, g)\n    fs[0]()\n",
        {"main -> f"},
    ),
    "for_over_literal": (
        "def f(): pass\ndef g(): pass\ndef main():\n    for h in [f, g]:\n        h()\n",
        {"main -> f", "main -> g"},
    ),
    "for_over_named_list": (
        "def f(): pass\ndef g(): pass\nHANDLERS = (f, g)\n"
        "def main():\n    for h in HANDLERS:\n        h()\n",
        {"main -> f", "main -> g"},
    ),
    "module_registry": (
        'def f(): pass\nREGISTRY = {}\nREGISTRY["f"] = f\ndef main():\n    REGISTRY["f"]()\n',
        {"main -> f"},
    ),
    "instance_in_dict": (
        'class C:\n    def m(self): pass\ndef main():\n    d = {"c": C()}\n    d["c"].m()\n',
        {"main -> C", "main -> C.m"},
    ),
    "self_referential": (
        'def main():\n    d = {}\n    d["x"] = d\n    d["x"]["x"]()\n',
        set(),
    ),
}

# iterating what an annotation says is a container of a class
ANNOTATED_CONTAINERS: dict[str, Case] = {
    "optional_generic_container": (
        "class Item:\n    def m(self): pass\n"
        "def main(items: list[Item] | None, by: dict[str, Item] | None = None):\n"
        "    for i in items:\n        i.m()\n    by['k'].m()\n",
        {"main -> Item.m"},
    ),
    "comprehension_variable": (
        "class Item:\n    def m(self): pass\n    def n(self): pass\n"
        "def main(items: list[Item]):\n    [k.m() for k in items]\n"
        "    any(j.n() for i, j in enumerate(items))\n",
        {"main -> Item.m", "main -> Item.n"},
    ),
    "classvar_and_property_containers": (
        "from typing import ClassVar\nclass Item:\n    def m(self): pass\n    def n(self): pass\n"
        "class Box:\n    registry: ClassVar[dict[str, Item]] = {}\n"
        "    @property\n    def items(self) -> list[Item]:\n        return []\n"
        "def main(b: Box):\n    b.registry['k'].m()\n    for i in b.items:\n        i.n()\n",
        {"main -> Item.m", "main -> Item.n"},
    ),
    "attribute_from_annotated_parameter": (
        "class Rule:\n    def empty(self): pass\n"
        "class Map:\n    def __init__(self, rules: list[Rule], by: dict[str, Rule]) -> None:\n"
        "        self.rules = rules\n        self.by = by\n"
        "    def go(self, k):\n        for r in self.rules:\n            r.empty()\n"
        "        self.by[k].empty()\n",
        {"Map.go -> Rule.empty"},
    ),
    "dict_get": (
        "class U:\n    def save(self): pass\nclass S:\n"
        "    def __init__(self):\n        self.by_name: dict[str, U] = {}\n"
        "    def run(self, k):\n        u = self.by_name.get(k)\n        u.save()\n",
        {"S.run -> U.save"},
    ),
    "dict_pop_of_a_parameter": (
        "class U:\n    def save(self): pass\ndef main(d: dict[str, U]):\n    d.pop('a').save()\n",
        {"main -> U.save"},
    ),
    "dict_values": (
        "class U:\n    def save(self): pass\n"
        "def main(d: dict[str, U]):\n    for u in d.values():\n        u.save()\n",
        {"main -> U.save"},
    ),
    "dict_items": (
        "class U:\n    def save(self): pass\n"
        "def main(d: dict[str, U]):\n    for k, u in d.items():\n        u.save()\n",
        {"main -> U.save"},
    ),
    "callable_local": (
        "from typing import Callable, Optional\nclass M:\n    def norm(self): pass\n"
        "def main(r):\n    get: Optional[Callable[[int], 'M']] = getattr(r, 'm', None)\n"
        "    get(1).norm()\n",
        {"main -> M.norm"},
    ),
    "callable_parameter": (
        "from typing import Callable\nclass M:\n    def norm(self): pass\n"
        "def main(make: Callable[..., M]):\n    make().norm()\n",
        {"main -> M.norm"},
    ),
    "callable_of_no_class_gives_nothing": (
        "from typing import Callable\ndef main(make: Callable[..., int]):\n    make().norm()\n",
        set(),
    ),
    "get_of_what_is_not_a_container_is_its_method": (
        "class Session:\n    def get(self): return Response()\n"
        "class Response:\n    def json(self): pass\n"
        "def main(s: Session):\n    s.get().json()\n",
        {"main -> Session.get", "main -> Response.json", "Session.get -> Response"},
    ),
    "parameter_list": (
        "class U:\n    def save(self): pass\n"
        "def main(users: list[U]):\n    for u in users:\n        u.save()\n",
        {"main -> U.save"},
    ),
    "self_attribute_sequence": (
        "import typing as t\nclass U:\n    def save(self): pass\nclass S:\n"
        "    def __init__(self):\n        self.users: t.Sequence[U] = []\n"
        "    def run(self):\n        for u in self.users:\n            u.save()\n",
        {"S.run -> U.save"},
    ),
    "optional_iterable_local": (
        "from typing import Iterable, Optional\nclass U:\n    def save(self): pass\n"
        "def main():\n    us: Optional[Iterable[U]] = None\n    for u in us or ():\n"
        "        pass\n    for u in us:\n        u.save()\n",
        {"main -> U.save"},
    ),
    "returned_iterator": (
        "from typing import Iterator\nclass U:\n    def save(self): pass\n"
        "def users() -> Iterator[U]:\n    yield U()\n"
        "def main():\n    for u in users():\n        u.save()\n",
        {"users -> U", "main -> users", "main -> U.save"},
    ),
    "method_returning_list": (
        "class U:\n    def save(self): pass\nclass S:\n"
        "    def users(self) -> list[U]:\n        return []\n"
        "    def run(self):\n        for u in self.users():\n            u.save()\n",
        {"S.run -> S.users", "S.run -> U.save"},
    ),
    "enumerate_and_sorted": (
        "class U:\n    def save(self): pass\n    def load(self): pass\n"
        "def main(users: tuple[U, ...]):\n    for i, u in enumerate(users):\n        u.save()\n"
        "    for v in sorted(users):\n        v.load()\n",
        {"main -> U.save", "main -> U.load"},
    ),
    "heterogeneous_tuple_is_not_one_class": (
        "class U:\n    def save(self): pass\n"
        "def main(pair: tuple[U, int]):\n    for u in pair:\n        u.save()\n",
        set(),
    ),
    "a_list_is_not_its_element": (
        "class U:\n    def save(self): pass\ndef main(users: list[U]):\n    users.save()\n",
        set(),
    ),
    "mapping_values_by_key": (
        "class U:\n    def save(self): pass\nclass S:\n"
        "    def __init__(self):\n        self.by_name: dict[str, U] = {}\n"
        "    def run(self, k):\n        self.by_name[k].save()\n        u = self.by_name[k]\n"
        "        u.save()\n",
        {"S.run -> U.save"},
    ),
    "sequence_index_and_mapping_keys": (
        "class U:\n    def save(self): pass\n    def load(self): pass\n"
        "def main(us: list[U], keyed: dict[U, int], i: int):\n    us[i].save()\n"
        "    for k in keyed:\n        k.load()\n    keyed[i].save()\n",
        {"main -> U.save", "main -> U.load"},
    ),
    "a_set_has_no_items": (
        "class U:\n    def save(self): pass\ndef main(us: set[U], i):\n    us[i].save()\n",
        set(),
    ),
    "container_annotated_in_other_file": (
        {
            "core.py": "class Param:\n    def default(self): pass\n"
            "class Command:\n    def __init__(self):\n        self.params: list[Param] = []\n"
            "        self.by_name: dict[str, Param] = {}\n"
            "    def ordered(self) -> 'list[Param]':\n        return self.params\n"
            "    def listed(self) -> list[Param]:\n        return self.params\n"
            "REGISTRY: dict[str, Command] = {}\n",
            "m.py": "from core import Command, REGISTRY\n"
            "def main(cmd: Command, k: str):\n    for p in cmd.params:\n        p.default()\n"
            "    cmd.by_name[k].default()\n    for q in cmd.listed():\n        q.default()\n"
            "    REGISTRY[k].listed()\n",
        },
        {
            "main -> core.py::Param.default",
            "main -> core.py::Command.listed",
        },
    ),
    "an_element_of_an_unannotated_attribute_stays_a_candidate": (
        {
            "core.py": "class Param:\n    def default(self): pass\n"
            "class Command:\n    def __init__(self):\n        self.params = [Param()]\n",
            "m.py": "from core import Command\n"
            "def main(cmd: Command):\n    for p in cmd.params:\n        p.default()\n",
        },
        {"core.py::Command.__init__ -> core.py::Param"},
    ),
    "forward_references": (
        {
            "env.py": "class Stream:\n    def eos(self): pass\n"
            "class Env:\n    def tokenize(self) -> 'Stream':\n        ...\n",
            "m.py": "import typing as t\nif t.TYPE_CHECKING:\n    from env import Env\n"
            "class Parser:\n    def __init__(self, env: 'Env'):\n"
            "        self.stream = env.tokenize()\n"
            "def main(p: \"Parser\", envs: 'list[Env]'):\n    p.stream.eos()\n"
            "    for e in envs:\n        e.tokenize()\n",
        },
        {
            "Parser.__init__ -> env.py::Env.tokenize",
            "main -> env.py::Stream.eos",
        },
    ),
    "cast": (
        "import typing as t\nfrom typing import cast\nclass U:\n    def save(self): pass\n"
        "def main(x):\n    cast(U, x).save()\n    u = t.cast(U, x)\n    u.save()\n",
        {"main -> U.save"},
    ),
    "a_cast_of_its_own_is_a_call": (
        "class U:\n    def save(self): pass\ndef cast(kind, x):\n    return x\n"
        "def main(x):\n    cast(U, x).save()\n",
        {"main -> cast"},
    ),
}

WITH_AND_EXCEPT: dict[str, Case] = {
    "enter_returns_self": (
        "class Pool:\n    def __enter__(self):\n        return self\n"
        "    def __exit__(self, *a): pass\n    def get(self): pass\n"
        "def main():\n    with Pool() as p:\n        p.get()\n",
        {"main -> Pool", "main -> Pool.get", "main -> Pool.__enter__", "main -> Pool.__exit__"},
    ),
    "enter_returns_other": (
        "class Conn:\n    def query(self): pass\n"
        "class Pool:\n    def __enter__(self):\n        return Conn()\n"
        "    def __exit__(self, *a): pass\n"
        "def main():\n    with Pool() as c:\n        c.query()\n",
        {"Pool.__enter__ -> Conn", "main -> Pool", "main -> Conn.query"}
        | {"main -> Pool.__enter__", "main -> Pool.__exit__"},
    ),
    "enter_annotated": (
        "class Conn:\n    def query(self): pass\n"
        "class Pool:\n    def __enter__(self) -> Conn:\n        ...\n"
        "def main():\n    with Pool() as c:\n        c.query()\n",
        {"main -> Pool", "main -> Conn.query", "main -> Pool.__enter__"},
    ),
    "with_external": (
        "def main():\n    with open('x') as f:\n        f.read()\n",
        set(),
    ),
    "async_with_aenter": (
        "class Group:\n    async def __aenter__(self):\n        return self\n"
        "    def start(self): pass\n"
        "def make() -> Group:\n    return Group()\n"
        "async def main(lock):\n    async with lock, make() as g:\n        g.start()\n",
        # `async with` calls the Group's __aenter__ (indexer/protocols_python.py)
        {"make -> Group", "main -> make", "main -> Group.start", "main -> Group.__aenter__"},
    ),
    "contextmanager_yields": (
        "import contextlib\nfrom typing import Iterator\nclass Conn:\n    def query(self): pass\n"
        "@contextlib.contextmanager\ndef connect() -> Iterator[Conn]:\n    yield Conn()\n"
        "def main():\n    with connect() as c:\n        c.query()\n",
        {"connect -> Conn", "main -> connect", "main -> Conn.query"},
    ),
    "contextmanager_method_in_other_file": (
        {
            "lib.py": "import typing\nfrom contextlib import asynccontextmanager\n"
            "class Response:\n    def read(self): pass\nclass Client:\n"
            "    @asynccontextmanager\n"
            "    async def stream(self) -> typing.AsyncIterator[Response]:\n"
            "        yield Response()\n",
            "m.py": "from lib import Client\nasync def main():\n"
            "    async with Client().stream() as r:\n        r.read()\n",
        },
        {
            "lib.py::Client.stream -> lib.py::Response",
            "main -> lib.py::Client",
            "main -> lib.py::Client.stream",
            "main -> lib.py::Response.read",
        },
    ),
    "contextmanager_unannotated": (
        "from contextlib import contextmanager\nclass Conn:\n    def query(self): pass\n"
        "@contextmanager\ndef connect():\n    c = Conn()\n    yield c\n"
        "def main():\n    with connect() as c:\n        c.query()\n",
        {"connect -> Conn", "main -> connect", "main -> Conn.query"},
    ),
    "contextmanager_unannotated_in_other_file": (
        {
            "lib.py": "from contextlib import contextmanager\n"
            "class Session:\n    def add(self): pass\n"
            "@contextmanager\ndef session():\n    yield Session()\n",
            "m.py": "from lib import session\ndef main():\n"
            "    with session() as s:\n        s.add()\n",
        },
        {
            "lib.py::session -> lib.py::Session",
            "main -> lib.py::session",
            "main -> lib.py::Session.add",
        },
    ),
    "a_generator_without_the_decorator_yields_nothing_to_with": (
        "from typing import Iterator\nclass Conn:\n    def query(self): pass\n"
        "def connect() -> Iterator[Conn]:\n    yield Conn()\n"
        "def main():\n    with connect() as c:\n        c.query()\n",
        {"connect -> Conn", "main -> connect"},
    ),
    "except_as": (
        "class Oops(Exception):\n    def detail(self): pass\n"
        "def main():\n    try:\n        pass\n    except Oops as e:\n        e.detail()\n",
        {"main -> Oops.detail"},
    ),
    "raise_instance": (
        "class Oops(Exception): pass\ndef main():\n    raise Oops('x')\n",
        {"main -> Oops"},
    ),
}

DECORATORS: dict[str, Case] = {
    "plain": (
        "def dec(f):\n    return f\n@dec\ndef g(): pass\n",
        {"<module> -> dec"},
    ),
    "with_arguments": (
        "def dec(n):\n    def wrap(f):\n        return f\n    return wrap\n@dec(1)\ndef g(): pass\n",
        {"<module> -> dec", "<module> -> dec.wrap"},
    ),
    "method_of_an_instance": (
        "class Router:\n    def route(self, f):\n        return f\napp = Router()\n"
        "@app.route\ndef index(): pass\n",
        {"<module> -> Router", "<module> -> Router.route"},
    ),
    "on_a_class": (
        "def register(cls):\n    return cls\n@register\nclass C: pass\n",
        {"<module> -> register"},
    ),
    "on_a_method": (
        "def traced(f):\n    return f\nclass C:\n    @traced\n    def m(self): pass\n",
        {"C -> traced"},
    ),
    "builtin_is_not_an_edge": (
        "class C:\n    @staticmethod\n    def m(): pass\n",
        set(),
    ),
    "method_returning_decorator": (
        "class Bus:\n    def on(self, name):\n        def add(f):\n            return f\n        return add\n"
        "bus = Bus()\n@bus.on('x')\ndef handler(): pass\n",
        {"<module> -> Bus", "<module> -> Bus.on", "<module> -> Bus.on.add"},
    ),
    # a decorator is given what it decorates
    "calls_what_it_decorates": (
        "def dec(f):\n    f()\n    return f\n@dec\ndef g(): pass\n",
        {"<module> -> dec", "dec -> g"},
    ),
    "wrapper_calls_the_decorated": (
        "def dec(f):\n    def inner():\n        return f()\n    return inner\n"
        "@dec\ndef g(): pass\n",
        {"<module> -> dec", "dec.inner -> g"},
    ),
    "stacked_the_outer_is_given_the_inner_result": (
        "def outer(f):\n    def a():\n        return f()\n    return a\n"
        "def under(f):\n    def b():\n        return f()\n    return b\n"
        "@outer\n@under\ndef g(): pass\n",
        {"<module> -> outer", "<module> -> under", "outer.a -> under.b", "under.b -> g"},
    ),
    "method_decorator_given_the_method": (
        "def traced(f):\n    def w(self):\n        return f(self)\n    return w\n"
        "class C:\n    @traced\n    def m(self): pass\n",
        {"C -> traced", "traced.w -> C.m"},
    ),
}

CLASSES: dict[str, Case] = {
    # calling an instance runs its class's __call__ (inherited too); a use
    # of the instance is not a call of it
    "instance_called": (
        "class App:\n    def __call__(self): pass\nclass Sub(App): pass\n"
        "def make():\n    return App()\n"
        "def main():\n    a = App()\n    a()\n    make()()\n    s = Sub()\n    s()\n    b = a\n",
        {"main -> App", "main -> Sub", "main -> make", "make -> App", "main -> App.__call__"},
    ),
    "instantiation": ("class C: pass\ndef main():\n    C()\n", {"main -> C"}),
    "super_single": (
        "class A:\n    def m(self): pass\nclass B(A):\n    def m(self):\n        super().m()\n",
        {"B.m -> A.m"},
    ),
    "super_c3_diamond": (
        "class A:\n    def m(self): pass\nclass B(A): pass\n"
        "class C(A):\n    def m(self): pass\n"
        "class D(B, C):\n    def m(self):\n        super().m()\n",
        {"D.m -> C.m"},
    ),
    "inherited_through_second_base": (
        "class Mixin:\n    def log(self): pass\nclass Base: pass\n"
        "class S(Base, Mixin):\n    def run(self):\n        self.log()\n",
        {"S.run -> Mixin.log"},
    ),
    "c3_for_self": (
        "class A:\n    def m(self): pass\nclass B(A): pass\nclass C(A):\n    def m(self): pass\n"
        "class D(B, C):\n    def run(self):\n        self.m()\n",
        {"D.run -> C.m"},
    ),
    "cls_in_classmethod": (
        "class C:\n    @classmethod\n    def a(cls):\n        cls.b()\n    @classmethod\n"
        "    def b(cls): pass\n",
        {"C.a -> C.b"},
    ),
    "subclass_instance_inherited_method": (
        "class Base:\n    def m(self): pass\nclass Sub(Base): pass\ndef main():\n    Sub().m()\n",
        {"main -> Sub", "main -> Base.m"},
    ),
    "annotated_local": (
        "class C:\n    def m(self): pass\ndef main(make):\n    x: C = make()\n    x.m()\n",
        {"main -> C.m"},
    ),
    "instance_in_module_variable": (
        "class C:\n    def m(self): pass\nINSTANCE = C()\ndef main():\n    INSTANCE.m()\n",
        {"<module> -> C", "main -> C.m"},
    ),
    "call_dunder_call": (
        "class Handler:\n    def __call__(self):\n        return 1\ndef main():\n    h = Handler()\n"
        "    h()\n",
        {"main -> Handler", "main -> Handler.__call__"},
    ),
    "untyped_stays_candidate": ("def main(x):\n    x.save()\n", set()),
}

CROSS_FILE: dict[str, Case] = {
    "factory_in_other_file": (
        {
            "pkg/__init__.py": "",
            "pkg/client.py": "class Client:\n    def send(self): pass\n",
            "pkg/factory.py": "from pkg.client import Client\ndef make():\n    return Client()\n",
            "m.py": "from pkg.factory import make\ndef main():\n    c = make()\n    c.send()\n",
        },
        {
            "pkg/factory.py::make -> pkg/client.py::Client",
            "main -> pkg/factory.py::make",
            "main -> pkg/client.py::Client.send",
        },
    ),
    "attribute_class_in_other_file": (
        {
            "lib.py": "class Client:\n    def send(self): pass\n",
            "m.py": "from lib import Client\nclass S:\n    def __init__(self):\n"
            "        self.client = Client()\n    def run(self):\n        self.client.send()\n",
        },
        {"S.__init__ -> lib.py::Client", "S.run -> lib.py::Client.send"},
    ),
    "reexported_factory": (
        {
            "pkg/__init__.py": "from .impl import make\n",
            "pkg/impl.py": "class C:\n    def m(self): pass\ndef make() -> C:\n    ...\n",
            "m.py": "from pkg import make\ndef main():\n    make().m()\n",
        },
        {"main -> pkg/impl.py::make", "main -> pkg/impl.py::C.m"},
    ),
    "module_variable_in_other_file": (
        {
            "conf.py": "class Settings:\n    def get(self): pass\nSETTINGS = Settings()\n",
            "m.py": "from conf import SETTINGS\ndef main():\n    SETTINGS.get()\n",
        },
        {"conf.py::<module> -> conf.py::Settings", "main -> conf.py::Settings.get"},
    ),
    "module_attribute": (
        {
            "conf.py": "class Settings:\n    def get(self): pass\nSETTINGS = Settings()\n",
            "m.py": "import conf\ndef main():\n    conf.SETTINGS.get()\n",
        },
        {"conf.py::<module> -> conf.py::Settings", "main -> conf.py::Settings.get"},
    ),
    "base_in_other_file_sets_attribute": (
        {
            "base.py": "class Client:\n    def send(self): pass\n"
            "class Base:\n    def __init__(self):\n        self.client = Client()\n",
            "m.py": "from base import Base\nclass S(Base):\n    def run(self):\n"
            "        self.client.send()\n",
        },
        {"base.py::Base.__init__ -> base.py::Client", "S.run -> base.py::Client.send"},
    ),
    "imported_decorator": (
        {
            "deco.py": "def traced(f):\n    return f\n",
            "m.py": "from deco import traced\n@traced\ndef g(): pass\n",
        },
        {"<module> -> deco.py::traced"},
    ),
    "returned_function_across_files": (
        {
            "a.py": "def inner(): pass\ndef get():\n    return inner\n",
            "m.py": "from a import get\ndef main():\n    get()()\n",
        },
        {"main -> a.py::get", "main -> a.py::inner"},
    ),
    "chain_across_three_files": (
        {
            "c.py": "class C:\n    def m(self): pass\n",
            "b.py": "from c import C\nclass B:\n    def c(self) -> C:\n        ...\n",
            "a.py": "from b import B\ndef get_b():\n    return B()\n",
            "m.py": "from a import get_b\ndef main():\n    get_b().c().m()\n",
        },
        {
            "a.py::get_b -> b.py::B",
            "main -> a.py::get_b",
            "main -> b.py::B.c",
            "main -> c.py::C.m",
        },
    ),
    "classmethod_factory_across_files": (
        {
            "model.py": "class Model:\n    @classmethod\n    def load(cls):\n        return cls()\n"
            "    def save(self): pass\n",
            "m.py": "from model import Model\ndef main():\n    Model.load().save()\n",
        },
        {
            "model.py::Model.load -> model.py::Model",
            "main -> model.py::Model.load",
            "main -> model.py::Model.save",
        },
    ),
}

# `isinstance` tests (indexer/narrow_python.py); both classes define `go`
# and `stop`, so an edge names the class the test proved
_TWO = (
    "class A:\n    def go(self): pass\n    def stop(self): pass\n"
    "class B:\n    def go(self): pass\n    def stop(self): pass\n"
)
NARROWING: dict[str, Case] = {
    "if_block": (
        _TWO + "def main(x):\n    if isinstance(x, A):\n        x.go()\n    x.stop()\n",
        {"main -> A.go"},
    ),
    "elif_block": (
        _TWO + "def main(x):\n    if isinstance(x, A):\n        x.go()\n"
        "    elif isinstance(x, B):\n        x.stop()\n",
        {"main -> A.go", "main -> B.stop"},
    ),
    "and_chain": (
        _TWO + "def main(x):\n    if x is not None and isinstance(x, B) and x.go():\n"
        "        x.stop()\n",
        {"main -> B.go", "main -> B.stop"},
    ),
    "assert_rest_of_block": (
        _TWO + "def main(x):\n    x.stop()\n    assert isinstance(x, B)\n    x.go()\n",
        {"main -> B.go"},
    ),
    "over_an_earlier_value": (
        _TWO + "def main():\n    x = A()\n    if isinstance(x, B):\n        x.go()\n",
        {"main -> A", "main -> B.go"},
    ),
    "negated_guards_nothing": (
        _TWO + "def main(x):\n    if not isinstance(x, A):\n        x.go()\n",
        set(),
    ),
    "tuple_of_classes": (
        _TWO + "def main(x):\n    if isinstance(x, (A, B)):\n        x.go()\n",
        set(),
    ),
    "nested_function_parameter": (
        _TWO + "def main(x):\n    if isinstance(x, A):\n        def inner(x):\n"
        "            x.go()\n        inner(1)\n",
        {"main -> main.inner"},
    ),
    "isinstance_of_its_own": (
        _TWO + "def isinstance(a, b):\n    return True\n"
        "def main(x):\n    if isinstance(x, A):\n        x.go()\n",
        {"main -> isinstance"},
    ),
}

# the special methods syntax calls without naming them (protocols_python.py)
_BAG = (
    "class Bag:\n"
    "    def __iter__(self): return iter([])\n"
    "    def __aiter__(self): return self\n"
    "    def __len__(self): return 0\n"
    "    def __getitem__(self, k): return k\n"
    "    def __setitem__(self, k, v): pass\n"
    "    def __delitem__(self, k): pass\n"
    "    def __contains__(self, k): return True\n"
    "    def __eq__(self, o): return True\n"
    "    def __lt__(self, o): return True\n"
    "    def __add__(self, o): return self\n"
    "    def __neg__(self): return self\n"
    "    def __enter__(self): return self\n"
    "    def __exit__(self, *a): pass\n"
    "    async def __aenter__(self): return self\n"
    "    async def __aexit__(self, *a): pass\n"
)
IMPLICIT: dict[str, Case] = {
    "for_loop": (
        _BAG + "def main(b: Bag):\n    for x in b:\n        pass\n",
        {"main -> Bag.__iter__"},
    ),
    "comprehension": (
        _BAG + "def main():\n    return [x for x in Bag()]\n",
        {"main -> Bag", "main -> Bag.__iter__"},
    ),
    "async_for": (
        _BAG + "async def main(b: Bag):\n    async for x in b:\n        pass\n",
        {"main -> Bag.__aiter__"},
    ),
    "with_and_async_with": (
        _BAG + "async def main(b: Bag):\n    with b:\n        pass\n"
        "    async with b as c:\n        pass\n",
        {
            "main -> Bag.__enter__",
            "main -> Bag.__exit__",
            "main -> Bag.__aenter__",
            "main -> Bag.__aexit__",
        },
    ),
    "subscripts": (  # read, assigned, deleted
        _BAG + "def main(b: Bag):\n    b[1]\n    b[2] = 3\n    del b[4]\n",
        {"main -> Bag.__getitem__", "main -> Bag.__setitem__", "main -> Bag.__delitem__"},
    ),
    "augmented_item": (
        _BAG + "def main(b: Bag):\n    b[1] += 1\n",
        {"main -> Bag.__getitem__", "main -> Bag.__setitem__"},
    ),
    "operators": (  # the left operand's; `in`: the right one's
        _BAG + "def main(b: Bag):\n    b == 1\n    b < 2\n    b + 3\n    -b\n    4 in b\n",
        {
            "main -> Bag.__eq__",
            "main -> Bag.__lt__",
            "main -> Bag.__add__",
            "main -> Bag.__neg__",
            "main -> Bag.__contains__",
        },
    ),
    "not_equal": (  # object's __ne__ asks __eq__, which Bag defines
        _BAG + "def main(b: Bag):\n    return b != 1\n",
        {"main -> Bag.__eq__"},
    ),
    "builtins": (_BAG + "def main(b: Bag):\n    return len(b)\n", {"main -> Bag.__len__"}),
    "builtin_of_the_files_own": (  # a `len` of the file's calls no __len__
        _BAG + "def len(x): return 0\ndef main(b: Bag):\n    return len(b)\n",
        {"main -> len"},
    ),
    "through_an_attribute_and_a_return": (
        _BAG + "class Box:\n    def __init__(self):\n        self.bag = Bag()\n"
        "    def each(self):\n        for x in self.bag:\n            pass\n"
        "def make() -> Bag: ...\ndef main():\n    return len(make())\n",
        {
            "Box.__init__ -> Bag",
            "Box.each -> Bag.__iter__",
            "main -> make",
            "main -> Bag.__len__",
        },
    ),
    "inherited": (
        _BAG + "class Sack(Bag):\n    pass\ndef main(s: Sack):\n    for x in s:\n        pass\n",
        {"main -> Bag.__iter__"},
    ),
    "an_iterator_of_its_own": (  # a loop calls __next__ on what __iter__ returns
        "class Walk:\n    def __iter__(self):\n        return self\n"
        "    def __next__(self):\n        raise StopIteration\n"
        "class Steps:\n    def __iter__(self):\n        return Walk()\n"
        "def main(w: Walk):\n    for x in w:\n        pass\n"
        "def other(s: Steps):\n    for y in s:\n        pass\n",
        {
            "main -> Walk.__iter__",
            "main -> Walk.__next__",
            "other -> Steps.__iter__",
            "other -> Walk.__next__",
            "Steps.__iter__ -> Walk",
        },
    ),
    "element_from_next": (  # what the loop gets: __next__'s return
        "class Item:\n    def go(self): pass\n"
        "class Walk:\n    def __iter__(self):\n        return self\n"
        "    def __next__(self):\n        return Item()\n"
        "def main():\n    for x in Walk():\n        x.go()\n",
        {
            "main -> Walk",
            "main -> Walk.__iter__",
            "main -> Walk.__next__",
            "main -> Item.go",
            "Walk.__next__ -> Item",
        },
    ),
    "element_yielded_by_iter": (  # a generator __iter__: what it yields
        "class Row:\n    def save(self): pass\n"
        "class Table:\n    def __iter__(self):\n        yield Row()\n"
        "def main(t: Table):\n    for r in t:\n        r.save()\n",
        {"main -> Table.__iter__", "main -> Row.save", "Table.__iter__ -> Row"},
    ),
    "element_annotated_on_iter": (
        "from typing import Iterator\nclass Row:\n    def save(self): pass\n"
        "class Table:\n    def __iter__(self) -> Iterator[Row]: ...\n"
        "def rows() -> Table: ...\n"
        "def main():\n    for r in rows():\n        r.save()\n",
        {"main -> rows", "main -> Table.__iter__", "main -> Row.save"},
    ),
    "item_from_getitem": (
        "class Handler:\n    def run(self): pass\n"
        "class Registry:\n    def __getitem__(self, k) -> Handler: ...\n"
        "REG = Registry()\n"
        "def main():\n    REG['a'].run()\n",
        {"<module> -> Registry", "main -> Registry.__getitem__", "main -> Handler.run"},
    ),
    "a_class_itself": (  # iterating a class runs its metaclass's __iter__
        _BAG + "def main():\n    for x in Bag:\n        pass\n    Bag[1]\n",
        set(),
    ),
    "values_not_followed": (  # builtins, unknown parameters, literals
        _BAG + "def main(x, d: dict):\n    for a in x:\n        pass\n"
        "    d[1] = 2\n    [1] + [2]\n    return len([]) == len(x)\n",
        set(),
    ),
}


ALL: dict[str, Case] = {
    f"{group}/{name}": case
    for group, cases in {
        "assignment": ASSIGNMENTS,
        "return": RETURNS,
        "attribute": ATTRIBUTES,
        "parameter": PARAMETERS,
        "container": CONTAINERS,
        "annotated-container": ANNOTATED_CONTAINERS,
        "with-except": WITH_AND_EXCEPT,
        "narrowing": NARROWING,
        "implicit": IMPLICIT,
        "decorator": DECORATORS,
        "class": CLASSES,
        "cross-file": CROSS_FILE,
    }.items()
    for name, case in cases.items()
}


def test_there_are_a_hundred_programs() -> None:
    assert len(ALL) >= 100


@pytest.mark.parametrize("name", sorted(ALL))
def test_call_edges(name: str) -> None:
    program, expected = ALL[name]
    files = program if isinstance(program, dict) else {"m.py": textwrap.dedent(program)}
    assert call_graph(dict(files)) == expected


def test_value_rows_are_not_references() -> None:
    _symbols, edges = rows_of({"m.py": ATTRIBUTES["set_in_init"][0]})
    values = [e for e in edges if e["kind"] == "value"]
    assert [(e["source"], e["target_qualname"]) for e in values] == [("S.client", "Client()")]


def test_a_name_a_package_reexports_from_outside_is_external() -> None:
    """`from click.utils import echo as echo` in a package's __init__: its
    users' `pkg.echo()` is click's, not a name the package fails to define."""
    files = {
        "pkg/__init__.py": "from click.utils import echo as echo\nfrom .main import run\n",
        "pkg/main.py": "def run(): pass\n",
        "app.py": "import pkg\nfrom pkg import echo\npkg.echo(1)\necho(2)\npkg.run()\npkg.nothing()\n",
    }
    symbols, edges = rows_of(files)
    linker = table_linker(symbols, edges)
    found = {}
    for e in edges:
        if e["path"] == "app.py" and e["kind"] == "call":
            link = linker.link(e["binding"], e["via"], e["resolved_path"], e["target_qualname"])
            found[e["start_line"]] = (link.binding, link.via)
    assert found[3] == ("external", "attribute of module pkg, then imported from click.utils")
    assert found[4] == ("external", "imported from pkg, then imported from click.utils")
    assert found[5][0] == "bound"
    assert found[6] == (
        "candidate",
        "attribute of module pkg; nothing not found in pkg/__init__.py",
    )


def test_a_link_is_the_same_whatever_was_linked_before() -> None:
    """The linker keeps what holders hold between links; why a claim reaches
    outside the repository must not depend on which claim walked a holder
    first (requests: `env.items()` after `for k in env`, `d.update()` on a
    class whose base compat.py re-exports from collections.abc)."""
    files: dict[str, str | bytes] = {
        "compat.py": "from collections.abc import MutableMapping\n",
        "structures.py": "from .compat import MutableMapping\nclass Dict(MutableMapping):\n    pass\n",
        "utils.py": "from urllib.request import getproxies\ndef proxies():\n    return getproxies()\n",
        "app.py": "from .structures import Dict\nfrom .utils import proxies\n"
        "def main():\n    env = proxies()\n    for k in env:\n        pass\n    env.items()\n"
        "    d = Dict()\n    d.update()\n    d.get(1)\n",
    }
    symbols, edges = rows_of(files)
    calls = [e for e in edges if e["kind"] == "call" and e["path"] == "app.py"]

    def link(linker: Any, e: dict[str, Any]) -> tuple[str, str]:
        got = linker.link(e["binding"], e["via"], e["resolved_path"], e["target_qualname"])
        return got.binding, got.via

    alone = {id(e): link(table_linker(symbols, edges), e) for e in calls}
    for order in (calls, calls[::-1]):
        linker = table_linker(symbols, edges)
        assert {id(e): link(linker, e) for e in order} == alone
    by_name = {e["target"]: alone[id(e)] for e in calls}
    assert by_name["items"][0] == by_name["update"][0] == by_name["get"][0] == "external"
    assert "MutableMapping, a base of Dict outside the repository" in by_name["update"][1]


def call_bindings(
    files: dict[str, str | bytes],
    path: str = "m.py",
    kinds: tuple[str, ...] = ("call",),
    language: str = "python",
) -> dict[tuple[int, str], str]:
    """(line, name) of each call (or edge of ``kinds``) of ``path`` -> its
    binding, as the linker reads it."""
    return {
        (e["start_line"], e["target"]): link.binding
        for e, link in linked(files, language)
        if e["path"] == path and e["kind"] in kinds
    }


def test_a_method_of_a_builtin_value_is_external() -> None:
    """`", ".join(xs)`, `seen = {}` then `seen.get(k)`, `names: list[str]`
    then `names.append(n)`, `dict.items(self)`: the platform's methods, not
    candidates for the repository's `get` or `join`. A parameter without an
    annotation, a local also given something else, and a shadowed builtin
    stay candidates."""
    program = (
        "from typing import List\n"
        "def f(names: list[str], opt: str | None, old: List[int], raw, d: dict = None):\n"
        '    ", ".join(names)\n'  # 3
        "    names.append('a')\n"  # 4
        "    opt.upper()\n"  # 5
        "    old.pop()\n"  # 6
        "    raw.get(1)\n"  # 7: anything another file passes
        "    seen = {}\n"
        "    seen.get(1)\n"  # 9
        "    parts = 'a,b'.split(',')\n"
        "    parts.pop()\n"  # 11
        "    mixed = []\n"
        "    mixed = make()\n"
        "    mixed.append(1)\n"  # 14: also what make() returns
        "    str(raw).strip().lower()\n"  # 15
        "    b'x'.decode().strip()\n"  # 16
        "    ('%s' % raw).encode()\n"  # 17
        "    d.items()\n"  # 18
        "    dict.items(d)\n"  # 19
    )
    shadowed = (  # the module's own list
        "class list:\n    def append(self, x): pass\ndef g(xs: list):\n    xs.append(1)\n"
    )
    found: dict[tuple[int, str], str] = {}
    for e, link in linked({"m.py": program, "n.py": shadowed}):
        if e["kind"] == "call" and e["path"] == "m.py":
            found.setdefault((e["start_line"], e["target"]), link.binding)
        elif e["kind"] == "call":
            found[(0, e["target"])] = link.binding
    external = {
        (3, "join"), (4, "append"), (5, "upper"), (6, "pop"), (9, "get"), (11, "pop"),
        (15, "strip"), (15, "lower"), (16, "decode"), (16, "strip"), (17, "encode"),
        (18, "items"), (19, "items"),
    }  # fmt: skip
    assert {k for k in external if found[k] != "external"} == set()
    assert found[(7, "get")] == "candidate"
    assert found[(14, "append")] == "candidate"
    assert found[(0, "append")] == "bound"


def test_a_method_of_a_holder_of_a_builtin_value_is_external() -> None:
    """`self.lines = []` then `self.lines.append(x)` in any method or file,
    `names().append()` of a function returning a list: the platform's. Not
    an enum's attribute (a member, whatever literal it is given), nor a
    call on what a builtin method returns (an item, maybe the repository's:
    `s.cache.get(k).lines` of `cache: dict[str, Stack]` in another file is
    Stack's, as `s.cache[k].lines` is), nor a holder also given something else."""
    files = {
        "m.py": (
            "import enum\nfrom lib import Base\n"
            "class Stack:\n"
            "    def __init__(self, other):\n"
            "        self.lines = []\n"
            "        self.cache: dict[str, Stack] = {}\n"
            "        self.mixed = []\n"
            "        self.mixed = other\n"
            "def names():\n"
            "    return ['a']\n"
            "class Kind(Base, enum.Enum):\n"
            "    A = 'a'\n"
            "    def toggle(self): pass\n"
            "from pydantic_settings import Source\n"
            "class Env(Source):\n"  # 14
            "    def __init__(self):\n"
            "        if self.env_vars:\n"  # 16: the outside base's, as before
            "            self.env_vars: dict[str, str] = {}\n"
        ),
        "n.py": (
            "from m import Stack, Kind, names\n"
            "def run(s: Stack):\n"
            "    s.lines.append(1)\n"  # 3
            "    s.cache.get('k').lines\n"  # 4: an item of the dict, a Stack
            "    s.cache.get('k').run()\n"  # 5: a Stack has no run
            "    s.cache.values()\n"  # 6
            "    s.mixed.append(2)\n"  # 7
            "    names().append('b')\n"  # 8
            "    Kind.A.toggle()\n"  # 9
            "    for t in s.cache.values():\n"
            "        t.lines\n"  # 11
        ),
    }
    found: dict[tuple[int, str], str] = {}
    for e, link in linked(files):
        if e["path"] == "n.py" and e["kind"] in ("call", "use"):
            found.setdefault((e["start_line"], e["target"]), link.binding)
        elif e["kind"] == "use" and e["target"] == "env_vars":
            found.setdefault((-e["start_line"], e["target"]), link.binding)
    assert found[(-17, "env_vars")] == "external"
    assert found[(3, "append")] == "external"
    assert found[(4, "get")] == "external"
    assert found[(4, "lines")] == "bound"
    assert found[(5, "run")] == "candidate"
    assert found[(6, "values")] == "external"
    assert found[(7, "append")] == "candidate"
    assert found[(8, "append")] == "external"
    assert found[(9, "toggle")] == "candidate"  # a member, not a str
    assert found[(11, "lines")] == "bound"


def test_an_alias_of_a_builtin_type_an_abstract_mapping_and_a_property_accessor() -> None:
    """`EventDict: TypeAlias = MutableMapping[str, Any]` (or `= dict[str,
    int]`) in one file, `e: EventDict` then `e.pop(k)` in another; `m:
    Mapping[str, int]` then `m.get(k)`; `@debug.setter` under a `def debug`
    of the class: the platform's methods, not candidates for the
    repository's `pop`, `get` or `setter`. A class of the repository used
    the same way stays its own."""
    files = {
        "t.py": (
            "from typing import Any, TypeAlias\nfrom collections.abc import MutableMapping\n"
            "EventDict: TypeAlias = MutableMapping[str, Any]\nCounts = dict[str, int]\n"
            "class Box:\n    def pop(self, k): pass\n    def get(self, k): pass\n"
        ),
        "m.py": (
            "from collections.abc import Mapping\nfrom t import EventDict, Counts, Box\n"
            "def f(e: EventDict, c: Counts, m: Mapping[str, int], b: Box):\n"
            "    e.pop('a')\n"  # 4
            "    c.get('b')\n"  # 5
            "    m.get('c')\n"  # 6
            "    b.pop('d')\n"  # 7
            "class App:\n    @property\n    def debug(self) -> bool:\n        return True\n"
            "    @debug.setter\n"  # 12
            "    def debug(self, v: bool) -> None:\n        pass\n"
            "    def setter(self): pass\n"
        ),
    }
    found = call_bindings(files, kinds=("call", "use"))
    assert found[(4, "pop")] == "external"
    assert found[(5, "get")] == "external"
    assert found[(6, "get")] == "external"
    assert found[(7, "pop")] == "bound"
    assert found[(12, "setter")] == "external"
    assert found[(12, "debug")] == "bound"  # a read of the property


def test_what_a_method_of_a_builtin_or_outside_value_returns_in_another_file() -> None:
    """`URL = re.compile(...)` in one file, then `URL.match(v).groupdict()`
    and `m = re.fullmatch(a, v) or re.fullmatch(b, v); m.groups()` in
    another; `s.name.strip().split()` of a str holder: the platform's
    methods, step by step. What a str has no method for stays a candidate."""
    files = {
        "g.py": "import re\nURL = re.compile('x')\nclass S:\n    def __init__(self):\n"
        "        self.name = 'a'\n",
        "m.py": (
            "import re\nfrom g import URL, S\n"
            "class R:\n    def groupdict(self): pass\n    def groups(self): pass\n"
            "    def split(self): pass\n    def get(self): pass\n    def run(self): pass\n"
            "def f(v, s: S):\n"
            "    URL.match(v).groupdict()\n"  # 10
            "    m = re.fullmatch('a', v) or re.fullmatch('b', v)\n    m.groups()\n"  # 12
            "    s.name.strip().split()\n"  # 13
            "    s.name.get().run()\n"  # 14
        ),
    }
    found = call_bindings(files)
    external = {(10, "match"), (10, "groupdict"), (12, "groups"), (13, "strip"), (13, "split")}
    assert {k for k in external if found[k] != "external"} == set()
    assert found[(14, "run")] == "candidate"


def test_a_rust_method_of_the_language_s_own_types_is_external() -> None:
    """`v.push(x)` of `let v = Vec::new()`, `s.len()` of `s: &str`,
    `h.insert()` of `HashMap::new()`: the platform's, not candidates for
    the repository's `push`, `len`, `insert`; one a trait of the
    repository gives `str` (`impl StrExt for str`) stays a candidate."""
    files = {
        "src/ext.rs": "pub trait StrExt {\n    fn slugify(&self) -> String;\n}\n"
        "impl StrExt for str {\n    fn slugify(&self) -> String { String::new() }\n}\n"
        "pub struct R;\nimpl R {\n    pub fn push(&self) {}\n    pub fn len(&self) {}\n"
        "    pub fn insert(&self) {}\n}\n",
        "src/lib.rs": "use std::collections::HashMap;\nuse crate::ext::StrExt;\n"
        "fn f(s: &str) {\n"
        "    let mut v = Vec::new();\n    v.push(1);\n"  # 5
        "    s.len();\n"  # 6
        "    let mut h = HashMap::new();\n    h.insert(1, 2);\n"  # 8
        "    s.slugify();\n"  # 9
        "}\n",
    }
    found = call_bindings(files, "src/lib.rs", language="rust")
    assert [found[k] for k in ((5, "push"), (6, "len"), (8, "insert"))] == ["external"] * 3
    assert found[(9, "slugify")] == "candidate"


def test_a_ruby_method_of_a_core_class_is_external_unless_reopened() -> None:
    """`arr.push(1)` of `arr = []`, `s.upcase` of `s = "x"`, `File.join`:
    Ruby's own, not candidates for the repository's `push` or `upcase`;
    `s.squish` where a file of the repository reopens `class String` with
    `def squish` is that method, wherever the file is loaded from."""
    files = {
        "app/m.rb": "class R\n  def push(x); end\n  def upcase; end\nend\n"
        "def f\n  arr = []\n  arr.push(1)\n"  # 7
        '  s = "x"\n  s.upcase\n'  # 9
        "  File.join('a', 'b')\n"  # 10
        "  s.squish\n"  # 11
        "end\n",
        "lib/core_ext.rb": "class String\n  def squish\n    self\n  end\nend\n",
    }
    found = call_bindings(files, "app/m.rb", language="ruby")
    assert [found[k] for k in ((7, "push"), (9, "upcase"), (10, "join"))] == ["external"] * 3
    assert found[(11, "squish")] == "bound"


def test_a_php_method_of_php_s_own_class_is_external() -> None:
    """`$d->format()` of `new \\DateTime()` (or `new DateTime()` in the
    global namespace), `$e->getLine()` of `\\Throwable $e`: PHP's, not
    candidates for the repository's `format` or `getLine`."""
    files = {
        "src/M.php": "<?php\nnamespace App;\n"
        "class R {\n  public function format() {}\n  public function getLine() {}\n}\n"
        "function f(\\Throwable $e) {\n"
        "  $d = new \\DateTime();\n  $d->format('Y');\n"  # 9
        "  $e->getLine();\n"  # 10
        "  $r = new R();\n  $r->format();\n"  # 12
        "}\n",
        "legacy.php": "<?php\nfunction g() {\n  $d = new DateTime();\n  $d->format('c');\n}\n",
    }
    found = call_bindings(files, "src/M.php", language="php")
    assert [found[k] for k in ((9, "format"), (10, "getLine"))] == ["external"] * 2
    assert found[(12, "format")] == "bound"
    legacy = call_bindings(files, "legacy.php", language="php")
    assert legacy[(3, "DateTime")] == legacy[(4, "format")] == "external"


def test_a_csharp_method_of_a_predefined_type_is_system_s() -> None:
    """`s.Trim()` of `string s`, `n.ToString()` of `int n`: System's, not
    candidates for the repository's `Trim`; an extension method of the
    repository on `string` still binds."""
    files = {
        "src/M.cs": "using System;\nnamespace App {\n"
        "  class R { public void Trim() {} public void Slug() {} }\n"
        "  static class Ext { public static string Slug(this string s) => s; }\n"
        "  class M {\n    void F(string s, int n) {\n"
        "      s.Trim();\n      n.ToString();\n      s.Slug();\n"  # 7, 8, 9
        "    }\n  }\n}\n",
    }
    found = call_bindings(files, "src/M.cs", language="csharp")
    assert [found[k] for k in ((7, "Trim"), (8, "ToString"))] == ["external"] * 2
    assert found[(9, "Slug")] == "bound"


def test_star_args_are_a_tuple_and_star_star_kwargs_a_dict() -> None:
    """`kwargs.get(k)` of `**kwargs`, `args.index(x)` of `*args`, annotated
    or not (`**kw: Any` was not bound as a parameter at all): the
    platform's methods, whatever the annotation says of their values."""
    program = (
        "from typing import Any\nclass R:\n    def get(self): pass\n    def index(self): pass\n"
        "kw = R()\n"
        "def f(*args, **kwargs):\n    kwargs.get('a')\n    args.index(1)\n"  # 7, 8
        "def g(*args: R, **kw: Any):\n    kw.get('x')\n    args.index(2)\n"  # 10, 11
    )
    found = call_bindings({"m.py": program})
    assert [found[k] for k in ((7, "get"), (8, "index"), (10, "get"), (11, "index"))] == [
        "external"
    ] * 4


def test_each_element_of_an_annotated_star_args_is_an_instance() -> None:
    """`def __init__(self, *handlers: Handler)`: iterating `handlers`,
    `handlers[0]`, and a holder given them (`self.handlers`, iterated in
    another file) give Handlers; `**opts: Option` gives an Option by key,
    but its keys, iterated, are not Options."""
    files: dict[str, str | bytes] = {
        "h.py": "class Handler:\n    def run(self): pass\nclass Option:\n    def run(self): pass\n",
        "m.py": (
            "from h import Handler, Option\n"
            "class App:\n"
            "    def __init__(self, *handlers: Handler, **opts: Option):\n"
            "        self.handlers = handlers\n"
            "        for h in handlers:\n            h.run()\n"  # 6
            "        handlers[0].run()\n"  # 7
            "        opts['a'].run()\n"  # 8
            "        for k in opts:\n            k.run()\n"  # 10
        ),
        "u.py": "from m import App\ndef use(app: App):\n    for h in app.handlers:\n        h.run()\n",
    }
    found = {
        (e["path"], e["start_line"]): (link.binding, link.symbol and link.symbol["qualname"])
        for e, link in linked(files, "python")
        if e["kind"] == "call" and e["target"] == "run"
    }
    handler, option = ("bound", "Handler.run"), ("bound", "Option.run")
    assert [found[("m.py", n)] for n in (6, 7, 8)] == [handler, handler, option]
    assert found[("u.py", 4)] == handler
    assert found[("m.py", 10)][0] == "candidate"


def test_what_a_function_from_outside_makes_of_literals_is_external() -> None:
    """`boto3.client("s3")`, `sqlite3.connect(":memory:")`, `hashlib.sha1()`:
    given only literals, a library's function returns the library's value,
    so `client.get_object()` is not a candidate for the repository's
    `get_object`. Given a name it may hand one back; `importlib.import_module`
    loads the repository's own code by name; and a `threading.local()` holds
    whatever the repository puts in it."""
    program = (
        "import boto3, hashlib, importlib, sqlite3, threading\n"
        "from app import make\n"
        "class Store:\n    def get_object(self): pass\n    def execute(self): pass\n"
        "client = boto3.client('s3', region_name='eu-west-1')\n"
        "client.get_object()\n"  # 7
        "conn = sqlite3.connect(':memory:')\n"
        "conn.execute('select 1')\n"  # 9
        "hashlib.sha1().update(b'x')\n"  # 10
        "other = boto3.client(make())\n"
        "other.get_object()\n"  # 12
        "tasks = importlib.import_module('app.tasks')\n"
        "tasks.execute()\n"  # 14
        "state = threading.local()\n"
        "state.store = Store()\n"
        "state.store.execute()\n"  # 17
    )
    found = call_bindings({"m.py": program})
    assert [found[k] for k in ((7, "get_object"), (9, "execute"), (10, "update"))] == [
        "external"
    ] * 3
    assert [found[k] for k in ((12, "get_object"), (14, "execute"))] == ["candidate"] * 2
    assert found[(17, "execute")] != "external"


def test_a_method_of_an_instance_of_a_class_from_outside_is_external() -> None:
    """`s: Session` of `from requests import Session`, `t = Session()`,
    `q = queue.Queue()`, `log = logging.getLogger(...)`, and a holder
    given one in another file (`self.lock = threading.Lock()`, a module's
    `logger`): the library's methods, not candidates for the repository's
    `get` or `info`. A mock stands in for the repository's objects, and a
    class of the repository is its own."""
    files = {
        "g.py": (
            "import logging, threading\nfrom requests import Session\n"
            "class C:\n    def __init__(self):\n"
            "        self.s = Session()\n        self.lock = threading.Lock()\n"
            "logger = logging.getLogger(__name__)\n"
            "class Repo:\n    def get(self): pass\n    def info(self): pass\n"
        ),
        "m.py": (
            "import logging, queue\nfrom requests import Session\n"
            "from unittest.mock import Mock\nfrom g import C, Repo, logger\n"
            "def f(s: Session, c: C, r: Repo):\n"
            "    s.get('u')\n"  # 6
            "    t = Session()\n    t.get('v')\n"  # 8
            "    q = queue.Queue()\n    q.get()\n"  # 10
            "    log = logging.getLogger('x')\n    log.info('a')\n"  # 12
            "    c.s.get('w')\n"  # 13
            "    c.lock.acquire()\n"  # 14
            "    logger.info('b')\n"  # 15
            "    m = Mock()\n    m.get()\n"  # 17
            "    r.get()\n"  # 18
        ),
    }
    found = call_bindings(files)
    external = {
        (6, "get"), (8, "get"), (10, "get"), (12, "info"), (13, "get"), (14, "acquire"),
        (15, "info"),
    }  # fmt: skip
    assert {k for k in external if found[k] != "external"} == set()
    assert found[(17, "get")] == "candidate"
    assert found[(18, "get")] == "bound"


def test_a_member_only_a_base_from_outside_can_define_is_external() -> None:
    """`self.assertEqual` in a TestCase, `c.get()` on a subclass of an
    outside client: the base's. An attribute on the way (`self.db.get()`,
    maybe set by a subclass) is not judged: a candidate."""
    program = (
        "from unittest import TestCase\nfrom werkzeug.test import Client as Base\n"
        "class Client(Base):\n    def mine(self): pass\n"
        "class T(TestCase):\n    def test(self):\n        self.assertEqual(1, 1)\n"
        "        c = Client()\n        c.get()\n        c.mine()\n        self.db.get()\n"
    )
    found = call_bindings({"m.py": program})
    assert found[(7, "assertEqual")] == "external"
    assert found[(9, "get")] == "external"
    assert found[(10, "mine")] == "bound"
    assert found[(11, "get")] == "candidate"


def test_a_generic_base_is_a_base_and_an_abstract_one_holds_no_data() -> None:
    """`class B(A[int])` derives from A (super(), self, an instance); a class
    of `Mapping[str, str]` calls `get` of typing's (external), but a read of
    `self._e`, set nowhere the rules see (a subclass, a mixin), is a
    candidate: typing's abstract bases hold no data."""
    program = (
        "import typing as t\nT = t.TypeVar('T')\n"
        "class A(t.Generic[T]):\n    def m(self): pass\n    def n(self): pass\n"
        "class B(A[int]):\n    def m(self):\n        super().m()\n        self.n()\n"
        "class Q(t.Mapping[str, str]):\n    def __init__(self, d):\n        self._d = d.copy()\n"
        "    def look(self):\n        self.get('k')\n        return self._e\n"
        "def use(b: B):\n    b.n()\n"
    )
    found = {
        (e["start_line"], e["target"]): (
            link.binding,
            link.symbol["qualname"] if link.symbol else None,
        )
        for e, link in linked({"m.py": program})
        if e["kind"] in ("call", "use") and e["start_line"] in (8, 9, 14, 15, 17)
    }
    assert found[(8, "m")] == ("bound", "A.m")
    assert found[(9, "n")] == ("bound", "A.n")
    assert found[(17, "n")] == ("bound", "A.n")
    assert found[(14, "get")] == ("external", None)
    assert found[(15, "_e")] == ("candidate", None)


HOSTILE = {
    # 1,500 deep: deeper than any real file, under the nesting bound (extract.py)
    "deep_attribute_chain": "x = a" + ".b" * 1500 + "\nx.c()\n",
    "recursive_factory": "def f():\n    return f()\nf().m()\n",
    "ten_thousand_assignments": "def f(): pass\n" + "a = f\n" * 10_000 + "a()\n",
    "long_alias_chain": "def f(): pass\na0 = f\n"
    + "".join(f"a{i + 1} = a{i}\n" for i in range(3000))
    + "a3000()\n",
    "branching_aliases": "def f(): pass\ndef g(): pass\na0 = f\nb0 = g\n"
    + "".join(f"a{i + 1} = a{i} or b{i}\nb{i + 1} = b{i} or a{i}\n" for i in range(400))
    + "a400()\n",
    "self_referential_containers": 'd = {}\nd["x"] = d\nl = [1]\nl[0] = l\nd["x"]["x"]()\nl[0][0]()\n',
    "callbacks_passed_around": "".join(
        f"def r{i}(a, b):\n    a(b, a)\n    b(a, b)\n" for i in range(500)
    )
    + "".join(f"r{i}(r{(i * 7) % 500}, r{(i * 13) % 500})\n" for i in range(500)),
    # twelve names each given every other: once per name, not once per path
    "containers_given_each_other": "def f(): pass\n"
    + "".join(f"n{i} = [f]\n" for i in range(12))
    + "".join(f"n{i} = n{j}\n" for i in range(12) for j in range(12) if i != j)
    + "def main(k):\n    for x in n0:\n        x()\n    n0[k]()\n",
    "mutual_holders": "class A:\n    def __init__(self):\n        self.b = B()\n"
    "class B:\n    def __init__(self):\n        self.a = A()\n"
    "def main():\n    A().b.a.b.a.b.a.b.a.b.a.b.m()\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_values_end_and_stay_candidates(name: str) -> None:
    """Every bound past a limit leaves a candidate, never an error; the whole
    set runs in well under the parse budget (a benchmark measures speed)."""
    graph = call_graph({"m.py": HOSTILE[name]})
    assert all(" -> " in edge for edge in graph)
    if name in ("ten_thousand_assignments", "long_alias_chain"):
        # too many values, or past the depth bound: not followed to f (the
        # call still names the module-level variable it goes through)
        assert not any(edge.endswith("-> f") for edge in graph)


# each local made by a call on the one before, 20,000 deep: the chain of
# what each holds stops growing at chains.MAX_STEPS (a string per local
# growing with the depth was quadratic)
N = 20_000
CHAINED_LOCALS = {
    "java": ("app/A.java", "package app;\nclass A {\n  A next() { return this; }\n  void run() {}\n"
             "  void m() {\n    var a0 = new A();\n"
             + "".join(f"    var a{i + 1} = a{i}.next();\n" for i in range(N))
             + f"    a{N}.run();\n    a3.run();\n  }}\n}}\n"),
    "kotlin": ("app/A.kt", "package app\nclass A {\n  fun next(): A = this\n  fun run() {}\n"
               "  fun m() {\n    val a0 = A()\n"
               + "".join(f"    val a{i + 1} = a{i}.next()\n" for i in range(N))
               + f"    a{N}.run()\n    a3.run()\n  }}\n}}\n"),
    "csharp": ("app/A.cs", "namespace App {\nclass A {\n  A Next() { return this; }\n  void Run() {}\n"
               "  void M() {\n    var a0 = new A();\n"
               + "".join(f"    var a{i + 1} = a{i}.Next();\n" for i in range(N))
               + f"    a{N}.Run();\n    a3.Run();\n  }}\n}}\n}}\n"),
    "rust": ("src/main.rs", "struct A;\nimpl A {\n  fn next(&self) -> A { A }\n  fn run(&self) {}\n}\n"
             "fn main() {\n  let a0: A = A;\n"
             + "".join(f"  let a{i + 1} = a{i}.next();\n" for i in range(N))
             + f"  a{N}.run();\n  a3.run();\n}}\n"),
    "go": ("app/a.go", "package app\ntype A struct{}\nfunc (a *A) Next() *A { return a }\n"
           "func (a *A) Run() {}\nfunc m() {\n  a0 := &A{}\n"
           + "".join(f"  a{i + 1} := a{i}.Next()\n" for i in range(N))
           + f"  a{N}.Run()\n  a3.Run()\n}}\n"),
}  # fmt: skip


@pytest.mark.parametrize("language", sorted(CHAINED_LOCALS))
def test_a_long_line_of_locals_made_by_calls_ends(language: str) -> None:
    path, program = CHAINED_LOCALS[language]
    run = "Run" if language in ("csharp", "go") else "run"
    lines = program.splitlines()
    bound = {
        lines[e["start_line"] - 1].strip()
        for e, _reached, _linker in bound_calls({path: program}, language=language)
        if e["target"] == run
    }
    # a few calls deep binds; twenty thousand deep is left a name match,
    # except in Rust, whose binder reads the file's own return types as it
    # goes (each local is an A, not a chain)
    assert any(line.startswith("a3.") for line in bound)
    assert any(line.startswith(f"a{N}.") for line in bound) == (language == "rust")


def test_a_file_past_its_evaluation_budget_keeps_its_direct_edges(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The budget ends value flow, not binding: what a value would have
    reached stays a candidate, and a direct call stays bound."""
    program = "def f(): pass\ndef g(): pass\ndef main():\n    a = g\n    a()\n    f()\n"
    assert call_graph({"m.py": program}) == {"main -> f", "main -> g"}
    monkeypatch.setattr(bind_python, "FLOW_STEPS_FLOOR", -len(program))
    assert call_graph({"m.py": program}) == {"main -> f"}


_TS_TWO = "class A {\n  go() {}\n  stop() {}\n}\nclass B {\n  go() {}\n  stop() {}\n}\n"
TYPESCRIPT: dict[str, tuple[dict[str, str], set[str]]] = {
    # elements of an array: annotated, a literal, pushed; through a callback's
    # parameter, a subscript, find(), filter()
    "array_elements": (
        {
            "m.ts": "class U {\n  save() {}\n}\nclass G {\n  join() {}\n}\n"
            "function main(us: U[]) {\n  us.forEach((u) => u.save());\n"
            "  us.filter((u) => true).map(function (v) { v.save(); });\n"
            "  us[0].save();\n  us.find((u) => true)?.save();\n"
            "  const gs = [];\n  gs.push(new G());\n  for (const g of gs) g.join();\n"
            "  for (const h of [new G()]) h.join();\n}\n"
        },
        {"main -> U.save", "main -> G", "main -> G.join"},
    ),
    # an alias of a union is either member, in any file; an alias of other
    # types (a literal among them) names none
    "alias_of_a_union": (
        {
            "shapes.ts": "export class Circle {\n  area() {}\n}\n"
            "export type Square = { area(): number };\n"
            "export type Shape = Circle | Square | null;\n"
            'export type Kind = Circle | "none";\n',
            "m.ts": 'import { Shape, Kind } from "./shapes";\n'
            "function main(s: Shape, k: Kind) {\n  s.area();\n  k.area();\n}\n",
        },
        {"main -> shapes.ts::Circle.area", "main -> shapes.ts::Square.area"},
    ),
    # an alias of an intersection derives from each named type in it (not
    # from its own type parameter); `Readonly<{...}>` keeps its members
    "alias_of_an_intersection": (
        {
            "types.ts": "type Base = Readonly<{ id: string; move(): void }>;\n"
            "export type Text = Base & { text(): string };\n"
            "export type Wrap<T> = T & Partial<{ done(): void }>;\n"
            "export type Element = Text | Wrap<Base>;\n",
            "m.ts": 'import { Element, Text, Wrap } from "./types";\n'
            "function main(e: Element, t: Text, w: Wrap<Text>) {\n"
            "  e.move();\n  t.text();\n  w.done();\n}\n",
        },
        {
            "main -> types.ts::Base.move",
            "main -> types.ts::Text.text",
            "main -> types.ts::Wrap.done",
        },
    ),
    # a declared union of ten (excalidraw's ExcalidrawElement), one member a
    # union itself: a type checker's, read whatever its width
    "alias_of_a_wide_union": (
        {
            "types.ts": "type Base = Readonly<{ id: string; move(): void }>;\n"
            "export type T0 = Base & { t0(): void };\nexport type T1 = Base & { t1(): void };\nexport type T2 = Base & { t2(): void };\nexport type T3 = Base & { t3(): void };\nexport type T4 = Base & { t4(): void };\nexport type T5 = Base & { t5(): void };\nexport type T6 = Base & { t6(): void };\nexport type T7 = Base & { t7(): void };\nexport type T8 = Base & { t8(): void };\nexport type T9 = Base & { t9(): void };\n"
            "export type Few = T0 | T1;\n"
            "export type Wide = Few | T2 | T3 | T4 | T5 | T6 | T7 | T8 | T9;\n",
            "m.ts": 'import { Wide } from "./types";\n'
            "function main(w: Wide) {\n  w.move();\n  w.t9();\n}\n",
        },
        {"main -> types.ts::Base.move", "main -> types.ts::T9.t9"},
    ),
    # an interface's or object type's member holds what it is annotated
    # (`props.repo.save()`), as a class's typed field does; a union alias's too
    "typed_members_of_an_interface": (
        {
            "types.ts": "export class Repo {\n  save() {}\n}\n"
            "export interface Props {\n  repo: Repo;\n  all: Repo[];\n}\n"
            "export type Done = { ok: true; repo: Repo } | { ok: false };\n",
            "m.ts": 'import { Props, Done } from "./types";\n'
            "function main(p: Props, d: Done) {\n"
            "  p.repo.save();\n  p.all[0].save();\n  d.repo.save();\n}\n",
        },
        {"main -> types.ts::Repo.save"},
    ),
    # an alias of `Readonly<A & {...}>` (or Partial, Required) derives from
    # what it wraps and keeps the object type's members, typed
    "alias_of_a_readonly_intersection": (
        {
            "types.ts": "export class Zoom {\n  scale() {}\n}\n"
            "type Common = { zoom: Zoom };\n"
            "export type Canvas = Readonly<Common & { grid: Zoom }>;\n"
            "export type Some = Partial<Common>;\n",
            "m.ts": 'import { Canvas, Some } from "./types";\n'
            "function main(c: Canvas, s: Some) {\n"
            "  c.zoom.scale();\n  c.grid.scale();\n  s.zoom.scale();\n}\n",
        },
        {"main -> types.ts::Zoom.scale"},
    ),
    # an indexed access type is the member's type (`zoom: AppState["zoom"]`)
    "indexed_access_types": (
        {
            "types.ts": "export class Zoom {\n  scale() {}\n}\n"
            "export interface AppState {\n  zoom: Zoom;\n}\n"
            'export type Canvas = { zoom: AppState["zoom"] };\n',
            "m.ts": 'import { Canvas, AppState } from "./types";\n'
            'function main(c: Canvas, z: AppState["zoom"]) {\n'
            "  c.zoom.scale();\n  z.scale();\n}\n",
        },
        {"main -> types.ts::Zoom.scale"},
    ),
    # React: `useContext(C)` gives what `createContext<T>()` is typed to hold,
    # and an arrow's expression body is its return (`const useApp = () => ...`)
    "react_context_and_arrow_returns": (
        {
            "types.ts": "export class Api {\n  refresh() {}\n}\n",
            "App.ts": 'import React, { useContext } from "react";\n'
            'import { Api } from "./types";\n'
            "export const ApiContext = React.createContext<Api | null>(null);\n"
            "export const useApi = () => useContext(ApiContext);\n"
            "export const make = () => new Api();\n",
            "m.ts": 'import { useContext } from "react";\n'
            'import { ApiContext, useApi, make } from "./App";\n'
            "function main() {\n  useContext(ApiContext).refresh();\n}\n"
            "function hook() {\n  useApi().refresh();\n}\n"
            "function arrow() {\n  make().refresh();\n}\n",
        },
        {
            "main -> types.ts::Api.refresh",
            "hook -> App.ts::useApi",
            "hook -> types.ts::Api.refresh",
            "arrow -> App.ts::make",
            "arrow -> types.ts::Api.refresh",
            "App.ts::make -> types.ts::Api",
        },
    ),
    # reading a getter's member runs it (`c.req` of `get req(): Req`)
    "getters": (
        {
            "ctx.ts": "export class Req {\n  header() {}\n}\n"
            "export class Ctx {\n  get req(): Req {\n    return new Req();\n  }\n"
            "  get other() {\n    return new Req();\n  }\n}\n",
            "m.ts": 'import { Ctx } from "./ctx";\n'
            "function main(c: Ctx) {\n  c.req.header();\n}\n"
            "function inferred(c: Ctx) {\n  c.other.header();\n}\n",
        },
        {
            "main -> ctx.ts::Req.header",
            "inferred -> ctx.ts::Req.header",
            "ctx.ts::Ctx.req -> ctx.ts::Req",
            "ctx.ts::Ctx.other -> ctx.ts::Req",
        },
    ),
    # a factory a test's callback defines (`describe(() => { const makeApp =
    # () => {...} })`) returns as a top-level one does
    "factory_in_a_callback": (
        {
            "m.ts": "class App {\n  run() {}\n}\n"
            "describe('x', () => {\n  const makeApp = () => {\n    const app = new App();\n"
            "    return app;\n  };\n  it('y', () => {\n    makeApp().run();\n  });\n});\n"
            "function main() {}\n",
        },
        {"makeApp -> App", "<module> -> makeApp", "<module> -> App.run"},
    ),
    # a field's elements: annotated, or pushed in a method; read in any file
    "field_elements": (
        {
            "lib.ts": "export class U {\n  save() {}\n}\nexport class Reg {\n  items: U[] = [];\n"
            "  others = [];\n  add() {\n    this.others.push(new U());\n  }\n"
            "  each() {\n    for (const x of this.items) x.save();\n  }\n}\n",
            "m.ts": 'import { Reg } from "./lib";\nfunction main(r: Reg) {\n'
            "  r.others.forEach((y) => y.save());\n}\n",
        },
        {
            "lib.ts::Reg.add -> lib.ts::U",
            "lib.ts::Reg.each -> lib.ts::U.save",
            "main -> lib.ts::U.save",
        },
    ),
    # a method of another class named like an array's says nothing of elements
    "not_an_array": (
        {
            "m.ts": "class U {\n  save() {}\n}\nclass Repo {\n  find(f: Function) {}\n}\n"
            "function main() {\n  const r = new Repo();\n  r.find((u) => u.save());\n}\n"
        },
        {"main -> Repo", "main -> Repo.find"},
    ),
    # `instanceof` tests (indexer/narrow_js.py): both classes define go and stop
    "instanceof_if": (
        {
            "m.ts": _TS_TWO + "function main(x: unknown) {\n"
            "  if (x instanceof A) {\n    x.go();\n  } else if (x instanceof B) x.stop();\n"
            "  x.go();\n}\n"
        },
        {"main -> A.go", "main -> B.stop"},
    ),
    "instanceof_and_ternary": (
        {
            "m.ts": _TS_TWO + "function main(x: A | B) {\n"
            "  const a = x instanceof B && x.go();\n"
            "  return x instanceof A ? x.stop() : null;\n}\n"
        },
        {"main -> B.go", "main -> A.stop"},
    ),
    "instanceof_negated_or_nested": (
        {
            "m.ts": _TS_TWO + "function main(x: unknown) {\n"
            "  if (!(x instanceof A)) {\n    x.go();\n  }\n"
            "  if (x instanceof A) {\n    [1].forEach(function (x) { x.stop(); });\n  }\n}\n"
        },
        set(),
    ),
    "new_then_method": (
        {"m.ts": "class C {\n  m() {}\n}\nfunction main() {\n  const x = new C();\n  x.m();\n}\n"},
        {"main -> C", "main -> C.m"},
    ),
    "this_attribute_from_constructor": (
        {
            "client.ts": "export class Client {\n  send() {}\n}\n",
            "m.ts": "import { Client } from './client';\nclass S {\n"
            "  constructor() {\n    this.c = new Client();\n  }\n"
            "  run() {\n    this.c.send();\n  }\n}\n",
        },
        {"S.constructor -> client.ts::Client", "S.run -> client.ts::Client.send"},
    ),
    "factory_return": (
        {
            "m.ts": "class C {\n  m() {}\n}\nfunction make() {\n  return new C();\n}\n"
            "function main() {\n  const x = make();\n  x.m();\n}\n"
        },
        {"make -> C", "main -> make", "main -> C.m"},
    ),
    "annotated_const": (
        {
            "m.ts": "class C {\n  m() {}\n}\nfunction main(get: any) {\n  const x: C = get();\n  x.m();\n}\n"
        },
        {"main -> C.m"},
    ),
    "unknown_stays_candidate": (
        {"m.ts": "function main(x: any) {\n  x.m();\n}\n"},
        set(),
    ),
    "typed_parameter": (
        {"m.ts": "class C {\n  m() {}\n}\nfunction main(c: C, d?: C) {\n  c.m();\n  d.m();\n}\n"},
        {"main -> C.m"},
    ),
    "typed_parameter_of_an_imported_class": (
        {
            "c.ts": "export class C {\n  m() {}\n}\n",
            "m.ts": "import { C } from './c';\nconst main = (c: C) => {\n  c.m();\n};\n",
        },
        {"main -> c.ts::C.m"},
    ),
    "field_declaration": (
        {
            "m.ts": "class C {\n  m() {}\n}\nclass S {\n  c: C;\n  run() {\n    this.c.m();\n  }\n}\n"
        },
        {"S.run -> C.m"},
    ),
    "constructor_parameter_property": (
        {
            "m.ts": "class C {\n  m() {}\n}\nclass S {\n  constructor(private readonly c: C) {}\n"
            "  run() {\n    this.c.m();\n  }\n}\n"
        },
        {"S.run -> C.m"},
    ),
    "plain_constructor_parameter_is_no_field": (
        {
            "m.ts": "class C {\n  m() {}\n}\nclass S {\n  constructor(c: C) {}\n"
            "  run() {\n    this.c.m();\n  }\n}\n"
        },
        set(),
    ),
    "return_type": (
        {
            "m.ts": "class C {\n  m() {}\n}\nfunction make(): C {\n  return build();\n}\n"
            "function main() {\n  const x = make();\n  x.m();\n}\n"
        },
        {"main -> make", "main -> C.m"},
    ),
    "awaited_promise": (
        {
            "m.ts": "class C {\n  m() {}\n}\nasync function make(): Promise<C> {\n  return build();\n}\n"
            "async function main() {\n  const x = await make();\n  x.m();\n}\n"
        },
        {"main -> make", "main -> C.m"},
    ),
    "for_of_an_annotated_array": (
        {
            "m.ts": "class C {\n  m() {}\n}\nfunction main(cs: C[], ds: ReadonlyArray<C>) {\n"
            "  for (const c of cs) {\n    c.m();\n  }\n  for (const d of ds) {\n    d.m();\n  }\n}\n"
        },
        {"main -> C.m"},
    ),
    "for_in_gives_keys_not_elements": (
        {
            "m.ts": "class C {\n  m() {}\n}\nfunction main(cs: C[]) {\n"
            "  for (const k in cs) {\n    k.m();\n  }\n}\n"
        },
        set(),
    ),
    "nullable_and_non_null": (
        {
            "m.ts": "class C {\n  m() {}\n}\nclass S {\n  c: C | null;\n"
            "  run(d: C | undefined) {\n    this.c!.m();\n    d!.m();\n  }\n}\n"
        },
        {"S.run -> C.m"},
    ),
    "as_cast": (
        {"m.ts": "class C {\n  m() {}\n}\nfunction main(x: any) {\n  (x as C).m();\n}\n"},
        {"main -> C.m"},
    ),
    "union_of_two_classes_names_either": (
        {
            "m.ts": "class C {\n  m() {}\n}\nclass D {\n  m() {}\n}\n"
            "function main(x: C | D | null) {\n  x.m();\n}\n"
        },
        {"main -> C.m", "main -> D.m"},
    ),
    "union_field_and_return_name_either": (
        {
            "m.ts": "class C {\n  m() {}\n}\nclass D {\n  m() {}\n}\n"
            "class H {\n  x: C | D;\n  get(): C | D {\n    return this.x;\n  }\n}\n"
            "function main(h: H) {\n  h.x.m();\n  h.get().m();\n}\n"
        },
        {"main -> C.m", "main -> D.m", "main -> H.get"},
    ),
    "awaited_union_names_the_class": (
        {
            "m.ts": "class R {\n  m() {}\n}\nfunction get(): R | Promise<R> {\n  return new R();\n}\n"
            "async function main() {\n  const r = await get();\n  r.m();\n}\n"
        },
        {"get -> R", "main -> get", "main -> R.m"},
    ),
    "union_with_a_primitive_names_neither": (
        {
            "m.ts": "class C {\n  m() {}\n}\nclass D {\n  m() {}\n}\n"
            "function main(x: C | string) {\n  x.m();\n}\n"
        },
        set(),
    ),
    "ternary_of_two_classes_names_either": (
        {
            "m.ts": "class C {\n  m() {}\n  n() {}\n}\nclass D {\n  m() {}\n}\n"
            "function main(ok: boolean, p) {\n  const x = ok ? new C() : new D();\n  x.m();\n"
            "  const y = ok ? new C() : p;\n  y.n();\n}\n"
        },
        {"main -> C", "main -> D", "main -> C.m", "main -> D.m"},
    ),
    "method_return_type": (
        {
            "m.ts": "class C {\n  m() {}\n}\nclass F {\n  make(): C {\n    return build();\n  }\n}\n"
            "function main(f: F) {\n  const x = f.make();\n  x.m();\n}\n"
        },
        {"main -> F.make", "main -> C.m"},
    ),
}


@pytest.mark.parametrize("name", sorted(TYPESCRIPT))
def test_typescript_call_edges(name: str) -> None:
    files, expected = TYPESCRIPT[name]
    assert call_graph(dict(files), main="m.ts", language="typescript") == expected


def test_a_method_of_what_a_packages_function_makes_is_external() -> None:
    """`const app = express()` (a `require` of the package), `express.Router({
    strict: true })`, `v4()` of "uuid": given nothing of the repository's,
    a package's function returns nothing of the repository's, so `app.get`
    is express's, not a candidate for every `get` of the repository. Given
    a value (`reactive(new Router())`), it may hand the repository's back,
    and a parameter of the package's name is not the package."""
    files: dict[str, str | bytes] = {
        "router.js": "export class Router {\n  get() {}\n  use() {}\n}\n",
        "server.js": (
            'const express = require("express");\n'
            'import { reactive } from "vue";\n'
            'import { v4 } from "uuid";\n'
            'import { Router } from "./router";\n'
            "const app = express();\n"
            "app.use(express.json());\n"  # 6
            'app.get("/", () => {});\n'  # 7
            "const r = express.Router({ strict: true });\n"
            'r.get("/x", () => {});\n'  # 9
            "const state = reactive(new Router());\n"
            "state.get();\n"  # 11
            "v4().slice(0, 8);\n"  # 12
            "function f(express) {\n  const a = express();\n  a.get();\n}\n"  # 15
        ),
    }
    found = call_bindings(files, "server.js", language="javascript")
    assert [found[k] for k in ((6, "use"), (7, "get"), (9, "get"), (12, "slice"))] == [
        "external"
    ] * 4
    assert found[(11, "get")] == found[(15, "get")] == "candidate"


def test_a_typescript_method_of_a_global_type_is_external() -> None:
    """`[]`, a string, `new Map()`, `xs: string[]`, `h: Headers`, a field
    `cache = new Map()` read in another file, `s.split(",").map()`,
    `Object.keys(o).forEach()`: the platform's methods, not candidates for the
    repository's `get` or `push`. A class of the file's own name, and a
    local also given a value the flow cannot read, stay what they were."""
    files = {
        "store.ts": (
            "export class Store {\n"
            "  cache = new Map<string, number>();\n"
            "  label: string;\n"
            "  get(k: string) { return this.cache.get(k); }\n"  # 4
            "}\n"
        ),
        "m.ts": (
            'import { Store } from "./store";\n'
            "export function run(xs: string[], h: Headers, s: Store, o: object, u) {\n"
            "  xs.push('a');\n"  # 3
            "  h.get('k');\n"  # 4
            "  s.cache.get('k');\n"  # 5
            "  s.label.trim();\n"  # 6
            "  'a,b'.split(',').map((p) => p);\n"  # 7
            "  Object.keys(o).forEach((k) => k);\n"  # 8
            "  let m = new Map();\n"
            "  m = u.make();\n"
            "  m.get('k');\n"  # 11: also what u.make() gives
            "  s.get('k');\n"  # 12
            "}\n"
            "class Set { add(x: number) {} }\n"
            "const own = new Set();\n"
            "own.add(1);\n"  # 16
            "function load(): Response | Promise<Response> { return fetch('/'); }\n"
            "export async function fetched(r: Response) {\n"
            "  r.json();\n"  # 19: the fetch API's Response
            "  const got = await load();\n"
            "  got.text();\n"  # 21: what awaiting either member gives
            "}\n"
        ),
    }
    found: dict[tuple[str, str], str] = {}  # (m3, push): line 3 of m.ts
    for e, link in linked(files, "typescript"):
        if e["kind"] == "call":
            found.setdefault((e["path"][0] + str(e["start_line"]), e["target"]), link.binding)
    external = {
        ("m3", "push"),
        ("m4", "get"),
        ("m5", "get"),
        ("m6", "trim"),
        ("m7", "split"),
        ("m7", "map"),
        ("m8", "keys"),
        ("m8", "forEach"),
        ("s4", "get"),
        ("m19", "json"),
        ("m21", "text"),
    }
    assert {k for k in external if found[k] != "external"} == set()
    assert found[("m11", "get")] == "candidate"
    assert found[("m12", "get")] == "bound"
    assert found[("m16", "add")] == "bound"
    own = (
        'import type { Set } from "./types";\nexport class C {\n  set: Set<number> = (k) => {};\n'
        "  run() {\n    this.set(1);\n  }\n}\nexport function use(c: C) {\n  c.set(2);\n}\n"
    )
    types = "export type Set<T> = (k: T) => void;\n"
    calls = [
        link.binding
        for e, link in linked({"c.ts": own, "types.ts": types}, "typescript")
        if e["kind"] == "call" and e["target"] == "set"
    ]
    assert calls == ["bound", "bound"]  # hono's `set: Set<E>`, its own type: a method


def test_typescript_mapping_values_and_what_a_promise_resolves_to() -> None:
    """`m.get(k)` of `m: Map<K, C>`, `r[k]` of a `Record<K, C>` or an index
    signature, `m.values()`, `m.forEach((v) => ...)`, a field so annotated
    (read in another file), and a `.then()` callback's parameter."""
    files: dict[str, str | bytes] = {
        "lib.ts": "export class U {\n  save() {}\n}\n"
        "export class Store {\n  byId: Map<string, U> = new Map();\n}\n"
        "export async function load(): Promise<U> {\n  return new U();\n}\n",
        "m.ts": 'import { U, Store, load } from "./lib";\n'
        "function main(m: Map<string, U>, r: Record<string, U>, "
        "ix: { [k: string]: U }, p: Promise<U>, s: Store) {\n"
        '  m.get("a")?.save();\n'  # 3
        '  r["a"].save();\n'
        '  ix["b"].save();\n'  # 5
        "  for (const u of m.values()) u.save();\n"
        "  m.forEach((v) => v.save());\n"  # 7
        "  p.then((w) => w.save());\n"
        "  load().then((x) => x.save());\n"  # 9
        '  s.byId.get("a")!.save();\n'
        "}\n",
    }
    found = call_bindings(files, path="m.ts", language="typescript")
    for line in range(3, 11):
        assert found[(line, "save")] == "bound", line
    # load()'s return is held awaited (a U, which has no `then`): the Promise's
    assert found[(9, "then")] == "external"


def test_the_browsers_own_types_and_objects_are_the_platforms() -> None:
    """`event: KeyboardEvent`, `document.createElement()`, a canvas's 2D
    context, `new ResizeObserver(f)`, `new Response()`: their methods are
    the browser's (`external`), not name matches of the repository's `save`
    or `observe`; a class of the file's own of such a name stays its own."""
    files: dict[str, str | bytes] = {
        "m.ts": "class Image {\n  save() {}\n}\nclass Store {\n  save() {}\n  observe() {}\n}\n"
        "function main(event: KeyboardEvent, canvas: HTMLCanvasElement) {\n"
        "  event.preventDefault();\n"  # 9
        '  const el = document.createElement("div");\n'
        '  el.setAttribute("a", "b");\n'  # 11
        '  const ctx = canvas.getContext("2d");\n'
        "  ctx.save();\n"  # 13
        "  const ro = new ResizeObserver(() => {});\n"
        "  ro.observe(el);\n"  # 15
        "  new Response('x').text();\n"
        "  new Image().save();\n"  # 17: the file's Image
        "}\n"
        "async function other(u: URL) {\n"
        '  const r = await fetch("x");\n'
        '  r.headers.get("y");\n'  # 21
        '  u.searchParams.get("q");\n'
        "}\n",
    }
    found = call_bindings(files, path="m.ts", language="typescript")
    for line, name in [
        (9, "preventDefault"),
        (10, "createElement"),
        (11, "setAttribute"),
        (12, "getContext"),
        (13, "save"),
        (14, "ResizeObserver"),
        (15, "observe"),
        (16, "Response"),
        (16, "text"),
        (21, "get"),  # a Response's headers
        (22, "get"),  # a URL's searchParams
    ]:
        assert found[(line, name)] == "external", (line, name)
    assert found[(17, "Image")] == found[(17, "save")] == "bound"


def test_typescript_namespace_members_and_readonly_arrays_type_values() -> None:
    """`u: T.User` and `new T.User()` of `import * as T from "./types"`, an
    element of `readonly T.User[]`; `e: React.PointerEvent<E>` of a package
    is the package's."""
    files: dict[str, str | bytes] = {
        "types.ts": "export class User {\n  save() {}\n}\n",
        "m.ts": 'import * as T from "./types";\nimport * as React from "react";\n'
        "function main(u: T.User, e: React.PointerEvent<Element>, xs: readonly T.User[]) {\n"
        "  u.save();\n"  # 4
        "  e.preventDefault();\n"
        "  new T.User().save();\n"  # 6
        "  xs.forEach((x) => x.save());\n"
        "}\n",
    }
    found = call_bindings(files, path="m.ts", language="typescript")
    assert [found[(line, "save")] for line in (4, 6, 7)] == ["bound"] * 3
    assert found[(5, "preventDefault")] == "external"


def test_a_builtin_base_makes_what_a_class_leaves_to_it_the_platforms() -> None:
    """`class Oops(Exception)` then `super().__init__(m)`, `class Reg(dict)`
    then `self.get(k)` and `super().__iter__()`: Exception's and dict's
    (external), not name matches of every `get` of the repository; a method
    the class defines is still its own."""
    files: dict[str, str | bytes] = {
        "m.py": "class Oops(Exception):\n"
        "    def __init__(self, m):\n"
        "        super().__init__(m)\n"  # 3
        "class Reg(dict):\n"
        "    def each(self):\n"
        "        self.get(1)\n"  # 6
        "        self.mine()\n"
        "        return super().__iter__()\n"  # 8
        "    def mine(self):\n"
        "        pass\n"
        "class Store:\n"
        "    def get(self, k):\n"
        "        pass\n"
        "class Base(object):\n"  # 14: `class Base:`
        "    def run(self):\n"
        "        self.handle()\n",  # 16: a subclass's, maybe
    }
    found = call_bindings(files)
    assert found[(3, "__init__")] == found[(6, "get")] == found[(8, "__iter__")] == "external"
    assert found[(7, "mine")] == "bound"
    assert found[(16, "handle")] == "candidate"


def test_typescript_names_given_each_other_are_read_once() -> None:
    """Six names each given every other, read by 300 calls: once per name (it
    took 35 s on a 20 kB file when each read walked every path)."""
    names = range(6)
    program = (
        "class C {\n  m() {}\n}\n"
        + "".join(f"let n{i} = new C();\n" for i in names)
        + "".join(f"n{i} = n{j};\n" for i in names for j in names if i != j)
        + "function main() {\n"
        + "".join(f"  n{i % 6}.m();\n" for i in range(300))
        + "}\n"
    )
    assert call_graph({"m.ts": program}, main="m.ts", language="typescript") == {
        "<module> -> C",
        "main -> C.m",
    }


JAVA: dict[str, tuple[dict[str, str], set[str]]] = {
    "declared_receivers": (
        {
            "app/Main.java": "package app;\nclass Repo {\n  void save() {}\n  static Repo open() { return null; }\n}\n"
            "class Main {\n  Repo field;\n  void main(Repo p) {\n    Repo local = new Repo();\n"
            "    local.save();\n    p.save();\n    this.field.save();\n    field.save();\n"
            "    Repo.open();\n    new Repo().save();\n    var v = new Repo();\n    v.save();\n"
            "    for (Repo r : all) {\n      r.save();\n    }\n  }\n}\n"
        },
        {"Main.main -> Repo", "Main.main -> Repo.save", "Main.main -> Repo.open"},
    ),
    "imported_and_same_package_classes": (
        {
            "app/Main.java": "package app;\nimport lib.Store;\nclass Main {\n"
            "  void main(Store s, Cache c) {\n    s.put();\n    c.get();\n  }\n}\n",
            "lib/Store.java": "package lib;\npublic class Store {\n  public void put() {}\n}\n",
            "app/Cache.java": "package app;\npublic class Cache {\n  public void get() {}\n}\n",
        },
        {"Main.main -> lib/Store.java::Store.put", "Main.main -> app/Cache.java::Cache.get"},
    ),
    # a test in src/test/java of a class in src/main/java: one package, two
    # source roots; the class of another module's copy of the package is not it
    "same_package_under_another_source_root": (
        {
            "app/Main.java": "package app;\nclass Main {}\n",
            "core/src/test/java/app/CacheTest.java": "package app;\nclass CacheTest {\n"
            "  void test() {\n    Cache c = new Cache();\n    c.get();\n  }\n}\n",
            "core/src/main/java/app/Cache.java": "package app;\npublic class Cache {\n"
            "  public void get() {}\n}\n",
            "other/src/main/java/app/Cache.java": "package app;\npublic class Cache {\n"
            "  public void get() {}\n}\n",
        },
        {
            "core/src/test/java/app/CacheTest.java::CacheTest.test -> "
            "core/src/main/java/app/Cache.java::Cache",
            "core/src/test/java/app/CacheTest.java::CacheTest.test -> "
            "core/src/main/java/app/Cache.java::Cache.get",
        },
    ),
    "inherited_method": (
        {
            "app/Main.java": "package app;\nclass Base {\n  void save() {}\n}\nclass Repo extends Base {}\n"
            "class Main {\n  void main(Repo r) {\n    r.save();\n  }\n}\n"
        },
        {"Main.main -> Base.save"},
    ),
    "lambda_parameter_shadows_a_field": (
        {
            "app/Main.java": "package app;\nclass Repo {\n  void save() {}\n}\nclass Main {\n  Repo r;\n"
            "  void main() {\n    run(r -> r.save());\n  }\n}\n"
        },
        set(),
    ),
    "what_a_method_returns": (
        {
            "app/Main.java": "package app;\nimport lib.Store;\nclass Main {\n"
            "  Repo make() { return new Repo(); }\n  void run(Repo p) {\n"
            "    var a = Repo.open();\n    a.save();\n    var b = make();\n    b.save();\n"
            "    var c = p.child();\n    c.save();\n    var d = Store.get();\n    d.save();\n  }\n}\n",
            "app/Repo.java": "package app;\nclass Repo {\n  static Repo open() { return new Repo(); }\n"
            "  Repo child() { return this; }\n  void save() {}\n}\n",
            "lib/Store.java": "package lib;\npublic class Store {\n  public static Object get() { return null; }\n}\n",
        },
        {
            "Main.make -> app/Repo.java::Repo",
            "Main.run -> Main.make",
            "Main.run -> app/Repo.java::Repo.open",
            "Main.run -> app/Repo.java::Repo.child",
            "Main.run -> lib/Store.java::Store.get",
            # a, b and c; not d: Store.get returns an Object
            "Main.run -> app/Repo.java::Repo.save",
            "app/Repo.java::Repo.open -> app/Repo.java::Repo",
        },
    ),
    "primitive_and_array_receivers_name_nothing": (
        {
            "app/Main.java": "package app;\nclass Repo {\n  void save() {}\n}\nclass Main {\n"
            "  void main(Repo[] rs, int n) {\n    rs.clone();\n  }\n}\n"
        },
        set(),
    ),
}


def test_a_java_call_on_a_class_from_outside_the_repository_is_external() -> None:
    program = 'package app;\nimport java.util.List;\nclass Main {\n  void main(List<String> xs) {\n    xs.add("a");\n  }\n}\n'
    _symbols, edges = rows_of({"app/Main.java": program}, language="java")
    (add,) = [e for e in edges if e["kind"] == "call" and e["target"] == "add"]
    assert (add["binding"], add["via"]) == (
        "external",
        "xs is a List, imported from java.util.List",
    )


def test_a_java_class_through_a_wildcard_import_or_java_lang() -> None:
    """`import java.util.*;` then `List<String> xs; xs.add()`, `new
    ArrayList<>()`, and java.lang's `String s; s.trim()` are the platform's;
    `import app.model.*;` then `Thing t; t.go()` is the repository's Thing.
    A wildcard of a package that is neither (a library's) says nothing."""
    files = {
        "src/org/app/Main.java": "package org.app;\nimport java.util.*;\nimport org.app.model.*;\nclass Main {\n"
        "  void main(List<String> xs, String s, Thing t) {\n"
        "    xs.add(s.trim());\n    t.go();\n    new ArrayList<String>();\n  }\n}\n",
        "src/org/app/model/Thing.java": "package org.app.model;\npublic class Thing {\n  public void go() {}\n}\n",
        "app/Lib.java": "package app;\nimport com.google.common.collect.*;\nclass Lib {\n"
        "  void f(ImmutableList<String> xs) {\n    xs.size();\n  }\n}\n",
    }
    _symbols, edges = rows_of(files, language="java")
    found = {(e["path"], e["target"]): e["binding"] for e in edges if e["kind"] == "call"}
    assert found[("src/org/app/Main.java", "add")] == "external"
    assert found[("src/org/app/Main.java", "trim")] == "external"
    assert found[("src/org/app/Main.java", "ArrayList")] == "external"
    assert found[("src/org/app/Main.java", "go")] == "bound"
    assert found[("app/Lib.java", "size")] == "candidate"


def test_a_kotlin_class_of_its_default_imports_or_a_wildcard() -> None:
    """Kotlin sees `String`, `List`, `StringBuilder`... without an import:
    their methods are the platform's, unless the repository extends the
    type (`fun String.slug()`) or its package has a class of the name (in
    a file of any name); `import java.util.*` then `Scanner(s).close()`
    is the platform's; `import app.model.*` then `t: Thing` is the
    repository's package (where a file of any name may hold a class, so
    beside it the platform's wildcard says nothing); a library's wildcard
    says nothing."""
    files = {
        "src/main/kotlin/app/Main.kt": "package app\nimport java.util.*\nimport app.model.*\n"
        "fun main(xs: List<String>, s: String, t: Thing) {\n"
        "  xs.add(s.trim())\n  s.slug()\n  t.go()\n  val b = StringBuilder()\n  b.append(s)\n}\n"
        "fun pairs(p: Pair) {\n  p.swap()\n  Regex(1, 2)\n}\n"
        'fun made() {\n  val ys = mutableListOf<String>()\n  ys.add("a")\n  println(ys)\n}\n',
        "src/main/kotlin/app/Io.kt": "package app\nimport java.util.*\n"
        "fun read(s: String) {\n  Scanner(s).close()\n}\n",
        "src/main/kotlin/app/Ext.kt": "package app\nfun String.slug(): String = this\n"
        "fun Regex(vararg codePoints: Int) = 0\n",
        "src/main/kotlin/app/Types.kt": "package app\nclass Pair {\n  fun swap() {}\n}\n",
        "src/main/kotlin/app/model/Thing.kt": "package app.model\nclass Thing {\n  fun go() {}\n"
        "  fun add(x: String) {}\n  fun append(x: String) {}\n  fun trim() {}\n}\n",
        "src/main/kotlin/lib/Lib.kt": "package lib\nimport com.google.common.collect.*\n"
        'fun f(xs: ImmutableList<String>) {\n  xs.add("a")\n}\n',
    }
    got = {
        (e["path"].rsplit("/", 1)[-1], e["target"]): link.binding
        for e, link in linked(files, "kotlin")
        if e["kind"] == "call"
    }
    assert got[("Main.kt", "add")] == "external"
    assert got[("Main.kt", "trim")] == "external"
    assert got[("Main.kt", "append")] == "external"
    assert got[("Main.kt", "StringBuilder")] == "external"
    assert got[("Io.kt", "close")] == "external"
    assert got[("Main.kt", "swap")] == "bound"  # the package's own Pair, in Types.kt
    assert got[("Main.kt", "Regex")] == "bound"  # the package's own function, in Ext.kt
    # kotlin's own functions, and what its factories make
    assert [got[("Main.kt", n)] for n in ("mutableListOf", "println")] == ["external"] * 2
    assert got[("Main.kt", "add")] == "external"
    assert got[("Main.kt", "slug")] == "bound"
    assert got[("Main.kt", "go")] == "bound"
    assert got[("Lib.kt", "add")] == "candidate"


GO: dict[str, tuple[dict[str, str], set[str]]] = {
    # a field of a struct declared in another file of the package, through a
    # parameter or what a function returns; a field of a func type called is
    # no call of the type
    "a_field_of_another_files_struct": (
        {
            "app/engine.go": "package app\ntype Engine struct{}\nfunc (e *Engine) Run() {}\n"
            "type Skipper func(int) bool\n",
            "app/context.go": "package app\ntype Context struct {\n\tengine *Engine\n"
            "\tname string\n\tSkip Skipper\n}\nfunc NewContext() *Context { return nil }\n",
            "app/m.go": "package app\nfunc use(c *Context) {\n\tc.engine.Run()\n"
            "\td := NewContext()\n\td.engine.Run()\n\tc.name.Run()\n\tc.Skip(1)\n}\n",
        },
        # c.Skip(1) calls what the field Skip holds: the field is what it names
        {
            "use -> app/context.go::NewContext",
            "use -> app/engine.go::Engine.Run",
            "use -> app/context.go::Context.Skip",
        },
    ),
    "declared_values": (
        {
            "app/m.go": "package app\ntype Repo struct{}\nfunc (r *Repo) Save() {}\n"
            "func NewRepo() *Repo { return &Repo{} }\n"
            "func use(p *Repo, q Repo) {\n  p.Save()\n  q.Save()\n  x := &Repo{}\n  x.Save()\n"
            "  var z Repo\n  z.Save()\n  w := NewRepo()\n  w.Save()\n}\n"
        },
        {"NewRepo -> Repo", "use -> Repo", "use -> NewRepo", "use -> Repo.Save"},
    ),
    "struct_field": (
        {
            "app/m.go": "package app\ntype DB struct{}\nfunc (d *DB) Query() {}\n"
            "type Service struct {\n  db *DB\n}\nfunc (s *Service) Run() {\n  s.db.Query()\n}\n"
        },
        {"Service.Run -> DB.Query"},
    ),
    "type_of_another_package": (
        {
            "app/m.go": 'package app\nimport "example.com/x/store"\n'
            "func use(db *store.DB) {\n  db.Query()\n}\n",
            "store/db.go": "package store\ntype DB struct{}\nfunc (d *DB) Query() {}\n",
        },
        {"use -> store/db.go::DB.Query"},
    ),
    "what_a_function_of_another_package_returns": (
        {
            "app/m.go": 'package app\nimport "example.com/x/store"\n'
            "func use() {\n  a := store.New()\n  a.Query()\n  b, err := store.Open()\n"
            "  b.Query()\n  _ = err\n}\n"
            "func hidden(store *Other) {\n  c := store.New()\n  c.Query()\n}\n",
            "store/db.go": "package store\ntype DB struct{}\nfunc (d *DB) Query() {}\n",
            "store/open.go": "package store\nfunc New() *DB { return &DB{} }\n"
            "func Open() (*DB, error) { return &DB{}, nil }\n",
        },
        {
            "use -> store/open.go::New",
            "use -> store/open.go::Open",
            "use -> store/db.go::DB.Query",
            "store/open.go::New -> store/db.go::DB",
            "store/open.go::Open -> store/db.go::DB",
        },
    ),
    "what_a_method_returns": (
        {
            "app/m.go": 'package app\nimport "example.com/x/store"\n'
            "func use(db *store.DB) {\n  t := db.Begin()\n  t.Commit()\n  r := NewRepo()\n"
            "  c := r.Child()\n  c.Save()\n  n := store.Open()\n  x := n.Begin()\n  x.Commit()\n}\n"
            "func (r *Repo) Run() {\n  k := r.Child()\n  k.Save()\n}\n",
            "app/repo.go": "package app\ntype Repo struct{}\nfunc NewRepo() *Repo { return &Repo{} }\n"
            "func (r *Repo) Child() *Repo { return r }\nfunc (r *Repo) Save() {}\n",
            "store/db.go": "package store\ntype DB struct{}\ntype Tx struct{}\n"
            "func Open() *DB { return &DB{} }\nfunc (d *DB) Begin() *Tx { return &Tx{} }\n"
            "func (t *Tx) Commit() {}\n",
        },
        {
            "use -> store/db.go::DB.Begin",
            "use -> store/db.go::Tx.Commit",
            "use -> store/db.go::Open",
            "use -> app/repo.go::NewRepo",
            "use -> app/repo.go::Repo.Child",
            "use -> app/repo.go::Repo.Save",
            "Repo.Run -> app/repo.go::Repo.Child",
            "Repo.Run -> app/repo.go::Repo.Save",
            "app/repo.go::NewRepo -> app/repo.go::Repo",
            "store/db.go::Open -> store/db.go::DB",
            "store/db.go::DB.Begin -> store/db.go::Tx",
        },
    ),
    "declared_twice_with_two_types_names_neither": (
        {
            "app/m.go": "package app\ntype A struct{}\nfunc (a A) M() {}\ntype B struct{}\nfunc (b B) M() {}\n"
            "func use(c bool) {\n  if c {\n    x := A{}\n    x.M()\n  } else {\n    x := B{}\n    x.M()\n  }\n}\n"
        },
        {"use -> A", "use -> B"},
    ),
}


RUST: dict[str, tuple[dict[str, str], set[str]]] = {
    # Rust looks a bare name up in the current module: `helper()` in `mod
    # tests` is its `fn helper`, also from an `impl` there (not S's method)
    "a_function_of_the_enclosing_module": (
        {
            "src/main.rs": "fn top() {}\nmod tests {\n    fn helper() {}\n    fn t() { helper(); }\n"
            "    struct S;\n    impl S {\n        fn helper(&self) {}\n"
            "        fn m(&self) { helper(); }\n    }\n}\n"
        },
        {"tests.t -> tests.helper", "tests.S.m -> tests.helper"},
    ),
    "declared_receivers": (
        {
            "src/main.rs": "struct Repo { db: Db }\nstruct Db;\nimpl Db {\n  fn query(&self) {}\n}\n"
            "impl Repo {\n  fn new() -> Self { Repo { db: Db } }\n  fn save(&self) {\n"
            "    self.check();\n    self.db.query();\n  }\n  fn check(&self) {}\n}\n"
            "fn main(p: &Repo, b: Box<Repo>) {\n  let r = Repo::new();\n  r.save();\n"
            "  p.save();\n  b.save();\n  let t: Repo = make();\n  t.save();\n}\n"
        },
        {
            "Repo.new -> Repo",
            "Repo.save -> Repo.check",
            "Repo.save -> Db.query",
            "main -> Repo.new",
            "main -> Repo.save",
        },
    ),
    "type_from_another_module": (
        {
            "src/main.rs": "use crate::store::Store;\nfn main(s: &mut Store) {\n"
            "  s.put();\n  Store::open();\n}\n",
            "src/store.rs": "pub struct Store;\nimpl Store {\n  pub fn open() -> Store { Store }\n"
            "  pub fn put(&mut self) {}\n}\n",
        },
        {"main -> src/store.rs::Store.put", "main -> src/store.rs::Store.open"},
    ),
    "what_a_function_of_another_module_returns": (
        {
            "src/main.rs": "use crate::store::{Store, make};\n"
            "fn main() -> Result<(), E> {\n  let a = Store::new();\n  a.put();\n"
            "  let b = make();\n  b.put();\n  let c = Store::open()?;\n  c.put();\n"
            "  let d = Store::open().unwrap();\n  d.put();\n  let e = d.child();\n  e.put();\n"
            "  let f = Store::open();\n  f.put();\n  Ok(())\n}\n",
            "src/store.rs": "pub struct Store;\nimpl Store {\n  pub fn new() -> Self { Store }\n"
            "  pub fn open() -> Result<Store, E> { Ok(Store) }\n"
            "  pub fn child(&self) -> Store { Store }\n  pub fn put(&mut self) {}\n}\n"
            "pub fn make() -> Store { Store }\n",
        },
        {
            "main -> src/store.rs::Store.new",
            "main -> src/store.rs::Store.open",
            "main -> src/store.rs::Store.child",
            "main -> src/store.rs::make",
            # a, b, c, d, e; not f: an Ok or an Err, not a Store
            "main -> src/store.rs::Store.put",
        },
    ),
    "the_crate_by_its_name_outside_its_src_and_through_a_re_export": (
        {
            "Cargo.toml": '[package]\nname = "my-db"\n',
            "tests/it.rs": "use my_db::store::Store;\nuse my_db::open;\n"
            "fn main() {\n  let s = open();\n  s.put();\n  Store::new();\n}\n",
            "src/lib.rs": "pub mod store;\npub use store::open;\n",
            "src/store/mod.rs": "mod inner;\npub use self::inner::{Store, open};\n",
            "src/store/inner.rs": "pub struct Store;\nimpl Store {\n  pub fn new() -> Self { Store }\n"
            "  pub fn put(&self) {}\n}\npub fn open() -> Store { Store }\n",
        },
        {
            "tests/it.rs::main -> src/store/inner.rs::open",
            "tests/it.rs::main -> src/store/inner.rs::Store.put",
            "tests/it.rs::main -> src/store/inner.rs::Store.new",
        },
    ),
    "calls_in_a_macros_arguments": (
        {
            "src/main.rs": "struct Repo;\nimpl Repo {\n  fn new() -> Self { Repo }\n"
            "  fn ok(&self) -> bool { true }\n}\nfn helper() -> i32 { 1 }\nfn index() {}\n"
            "fn main() {\n  let r = Repo::new();\n  assert!(r.ok());\n"
            '  assert_eq!(helper(), 1);\n  println!("{}", format!("{:?}", Repo::new()));\n'
            "  let v = vec![0; 3];\n  let w = vec![v[0], v.index(1)];\n}\n"
        },
        {
            "main -> Repo.new",
            "main -> Repo.ok",
            "main -> helper",
            # not `format` (a macro), nor `v[0]` (an index), nor v.index (a Vec's)
        },
    ),
    "a_module_path_is_not_a_type": (
        {"src/main.rs": "mod util;\nfn main() {\n  util::helper();\n}\n"},
        set(),
    ),
}

KOTLIN: dict[str, tuple[dict[str, str], set[str]]] = {
    # a bare run() inside a lambda with another receiver is first the
    # receiver's (x.apply {}, with(x) {}, buildString {}); elsewhere the class's
    "a_lambda_with_another_receiver": (
        {
            "app/Main.kt": "package app\nclass A {\n  fun run() {}\n  fun f(x: B) {\n"
            "    run()\n    x.apply { run() }\n    with(x) { run() }\n"
            "    buildString { run() }\n    this.apply { run() }\n  }\n}\n"
        },
        {"A.f -> A.run"},
    ),
    "declared_receivers": (
        {
            "app/Main.kt": "package app\nimport lib.Store\nclass Repo {\n  fun save() {}\n}\n"
            "class Main(private val f: Repo, g: Repo) {\n  val h: Repo = Repo()\n"
            "  fun run(p: Repo, s: Store?) {\n    val x = Repo()\n    x.save()\n    p.save()\n"
            "    f.save()\n    this.h.save()\n    s?.put()\n    Cache.get()\n    g.save()\n  }\n}\n",
            "lib/Store.kt": "package lib\nclass Store {\n  fun put() {}\n}\n",
            "app/Cache.kt": "package app\nobject Cache {\n  fun get() {}\n}\n",
        },
        {
            "Main.h -> Repo",
            "Main.run -> Repo",
            "Main.run -> Repo.save",
            "Main.run -> lib/Store.kt::Store.put",
            "Main.run -> app/Cache.kt::Cache.get",
        },
    ),
    "an_expression_body_makes_its_class": (
        {
            "app/Main.kt": "package app\nclass Repo {\n  fun save() {}\n}\nfun make() = Repo()\n"
            "fun setup() { Repo() }\nfun run() {\n  val a = make()\n  a.save()\n"
            "  val b = setup()\n  b.save()\n}\n"
        },
        # `= Repo()` returns a Repo; a block body that calls Repo() returns Unit
        {"make -> Repo", "setup -> Repo", "run -> make", "run -> setup", "run -> Repo.save"},
    ),
    "what_a_function_returns": (
        {
            "app/Main.kt": "package app\nclass Main {\n  fun make(): Repo = Repo()\n"
            "  fun run(p: Repo) {\n    val a = Repo.open()\n    a.save()\n    val b = make()\n"
            "    b.save()\n    val c = p.child()\n    c.save()\n    val d = helper()\n    d.save()\n  }\n}\n"
            "fun helper(): Repo? = null\n",
            "app/Repo.kt": "package app\nclass Repo {\n  fun child(): Repo = this\n  fun save() {}\n"
            "  companion object {\n    fun open(): Repo = Repo()\n  }\n}\n",
        },
        {
            "Main.make -> app/Repo.kt::Repo",
            "Main.run -> Main.make",
            "Main.run -> helper",
            "Main.run -> app/Repo.kt::Repo.child",
            "Main.run -> app/Repo.kt::Repo.open",
            "Main.run -> app/Repo.kt::Repo.save",
            "app/Repo.kt::Repo.open -> app/Repo.kt::Repo",
        },
    ),
}

PHP: dict[str, tuple[dict[str, str], set[str]]] = {
    # `use Acme\Client;` names the class its namespaced file defines
    # (Acme.Client there): `new Client()` and the import bind
    "a_class_imported_by_use": (
        {
            "src/Client.php": "<?php\nnamespace Acme;\n\nclass Client\n{\n"
            "    public function send() {}\n}\n",
            "src/Main.php": "<?php\nnamespace Acme\\Tests;\n\nuse Acme\\Client;\n\n"
            "class Main\n{\n    public function run()\n    {\n        $c = new Client();\n"
            "        $c->send();\n    }\n}\n",
        },
        {
            "Acme.Tests.Main.run -> src/Client.php::Acme.Client",
            "Acme.Tests.Main.run -> src/Client.php::Acme.Client.send",
        },
    ),
    "declared_receivers": (
        {
            "src/Main.php": "<?php\nnamespace App;\nuse Lib\\Store;\nclass Repo {\n"
            "  public function save() {}\n  public static function open() {}\n}\n"
            "class Main {\n  private Repo $f;\n  public function __construct(private Repo $g) {}\n"
            "  public function run(?Repo $p, Store $s, int $n) {\n    $x = new Repo();\n"
            "    $x->save();\n    $p->save();\n    $this->f->save();\n    $this->g->save();\n"
            "    $s->put();\n    Repo::open();\n    $this->run($p, $s, 1);\n  }\n}\n",
            "src/Lib/Store.php": "<?php\nnamespace Lib;\nclass Store {\n  public function put() {}\n}\n",
        },
        {
            "App.Main.run -> App.Repo",
            "App.Main.run -> App.Repo.save",
            "App.Main.run -> App.Repo.open",
            "App.Main.run -> App.Main.run",
            "App.Main.run -> src/Lib/Store.php::Lib.Store.put",
        },
    ),
    "what_a_method_returns": (
        {
            "src/Main.php": "<?php\nnamespace App;\nuse Lib\\Store;\nfunction make(): ?Repo { return new Repo(); }\n"
            "class Main {\n  public function run() {\n    $a = Repo::open();\n    $a->save();\n"
            "    $b = $a->child();\n    $b->save();\n    $c = make();\n    $c->save();\n"
            "    $d = Store::get();\n    $d->put();\n  }\n}\n",
            "src/Repo.php": "<?php\nnamespace App;\nclass Repo {\n"
            "  public static function open(): self { return new Repo(); }\n"
            "  public function child(): static { return $this; }\n  public function save() {}\n}\n",
            "src/Lib/Store.php": "<?php\nnamespace Lib;\nclass Store {\n"
            "  public static function get(): int { return 1; }\n  public function put() {}\n}\n",
        },
        {
            "App.Main.run -> src/Repo.php::App.Repo.open",
            "App.Main.run -> src/Repo.php::App.Repo.child",
            "App.Main.run -> src/Repo.php::App.Repo.save",
            "App.Main.run -> src/Lib/Store.php::Lib.Store.get",
            # not put: Store::get returns an int
            "App.Main.run -> App.make",
            "App.make -> src/Repo.php::App.Repo",
            "src/Repo.php::App.Repo.open -> src/Repo.php::App.Repo",
        },
    ),
}

RUBY: dict[str, tuple[dict[str, str], set[str]]] = {
    # a base or a mixin is an ancestor: a bare call the class does not
    # define is looked for in them (its module's, another file's); an
    # `include` inside a block mixes into another class
    "bases_and_mixins": (
        {
            "lib/helpers.rb": "module App\n  module Helpers\n    def halt(code); end\n  end\n"
            "  class Base\n    include Helpers\n    def run\n      halt(1)\n    end\n  end\nend\n",
            "lib/main.rb": "require 'helpers'\nclass Main < App::Base\n  def go\n    halt(1)\n  end\nend\n"
            "class Other\n  describe do\n    include App::Helpers\n  end\n  def go\n    halt(1)\n  end\nend\n",
        },
        {
            "lib/helpers.rb::App.Base.run -> lib/helpers.rb::App.Helpers.halt",
            "Main.go -> lib/helpers.rb::App.Helpers.halt",
        },
    ),
    "a_constant_named_inside_its_module": (
        {
            "lib/main.rb": "module App\n  class Helper\n    def self.go\n    end\n  end\n"
            "  class Main\n    def run\n      Helper.go\n    end\n  end\nend\n",
        },
        {"App.Main.run -> App.Helper.go"},
    ),
    "constants_new_and_own_methods": (
        {
            "lib/repo.rb": "class Repo\n  def self.open\n    new\n  end\n  def save\n  end\nend\n",
            "lib/main.rb": "require_relative 'repo'\nmodule App\n  class Main\n    def run\n"
            "      r = Repo.new\n      r.save\n      Repo.open\n      helper(1)\n      self.helper\n"
            "      [1].each do |x|\n        r.save\n      end\n      r = 1\n      r.save()\n"
            "      other(2)\n      Missing.go\n    end\n    def helper(x = 1)\n    end\n  end\nend\n",
        },
        {
            "App.Main.run -> lib/repo.rb::Repo",  # Repo.new
            "App.Main.run -> lib/repo.rb::Repo.save",  # r, in the method and its block
            "App.Main.run -> lib/repo.rb::Repo.open",
            "App.Main.run -> App.Main.helper",  # helper(1), self.helper
            "lib/repo.rb::Repo.open -> lib/repo.rb::Repo",  # `new` in a class method
            # not other(2): the class does not define it; not Missing.go; not
            # r.save once r is 1
        },
    ),
    # `helper` alone is a call unless a parameter or an earlier assignment
    # made it a local (a block sees the method's); `other` binds nowhere
    "bare_names_are_calls_unless_locals": (
        {
            "lib/main.rb": "class Main\n  def run(opts, cfg = nil)\n    value = helper\n"
            "    helper.strip\n    [1].each { |item| item; helper }\n    value\n    opts\n"
            '    "#{helper}"\n    other\n    cfg\n  end\n\n  def helper\n    ""\n  end\nend\n',
        },
        {"Main.run -> Main.helper"},
    ),
    # `attr_reader :headers, :status` defines two methods, read bare
    "attr_readers_are_methods": (
        {
            "lib/main.rb": "class Raw\n  attr_reader :headers, :status\n  attr_accessor :body\n"
            "  def to_a\n    [status, headers, body]\n  end\nend\n",
        },
        {"Raw.to_a -> Raw.headers", "Raw.to_a -> Raw.status", "Raw.to_a -> Raw.body"},
    ),
}

# declared types: (language, the file whose callers are named bare, cases)
DECLARED = {
    "ruby": ("lib/main.rb", RUBY),
    "php": ("src/Main.php", PHP),
    "kotlin": ("app/Main.kt", KOTLIN),
    "java": ("app/Main.java", JAVA),
    "go": ("app/m.go", GO),
    "rust": ("src/main.rs", RUST),
}


@pytest.mark.parametrize(
    ("language", "name"), [(lang, name) for lang, (_, cases) in DECLARED.items() for name in cases]
)
def test_declared_type_call_edges(language: str, name: str) -> None:
    main, cases = DECLARED[language]
    files, expected = cases[name]
    assert call_graph(dict(files), main=main, language=language) == expected


# (language, case, main file, method): the calls of it that bind, by line.
# Rust: `let f = Store::open(); f.put()`: f is an Ok or an Err, whose methods
# are not Store's; `?` and `.unwrap()` make it the Store. Java: `Store.get()`
# returns an Object.
RETURNED_LINES = [
    ("rust", "what_a_function_of_another_module_returns", "src/main.rs", "put",
     {"a.put();", "b.put();", "c.put();", "d.put();", "e.put();"}),
    ("java", "what_a_method_returns", "app/Main.java", "save", {"a.save();", "b.save();", "c.save();"}),
    ("kotlin", "what_a_function_returns", "app/Main.kt", "save",
     {"a.save()", "b.save()", "c.save()", "d.save()"}),
    ("php", "what_a_method_returns", "src/Main.php", "save",
     {"$a->save();", "$b->save();", "$c->save();"}),
    ("php", "what_a_method_returns", "src/Main.php", "put", set()),
    ("ruby", "constants_new_and_own_methods", "lib/main.rb", "save", {"r.save"}),
    ("ruby", "bare_names_are_calls_unless_locals", "lib/main.rb", "helper",
     {"value = helper", "helper.strip", "[1].each { |item| item; helper }", '"#{helper}"'}),
    ("kotlin", "an_expression_body_makes_its_class", "app/Main.kt", "save", {"a.save()"}),
    ("kotlin", "a_lambda_with_another_receiver", "app/Main.kt", "run",
     {"run()", "this.apply { run() }"}),
]  # fmt: skip


@pytest.mark.parametrize(("language", "case", "main", "method", "lines"), RETURNED_LINES)
def test_a_local_holds_what_its_call_returns_and_no_more(
    language: str, case: str, main: str, method: str, lines: set[str]
) -> None:
    files, _expected = DECLARED[language][1][case]
    source = files[main].splitlines()
    bound = {
        source[e["start_line"] - 1].strip()
        for e, _reached, _linker in bound_calls(dict(files), language=language)
        if e["target"] == method and e["path"] == main
    }
    assert bound == lines


def test_a_receiver_written_over_lines_is_one_line_in_the_via() -> None:
    program = (
        "struct Cmd;\nimpl Cmd {\n  fn name(&self) {}\n}\nstruct P { cmd: Cmd }\n"
        "impl P {\n  fn run(&self) {\n    self\n      .cmd\n      .name();\n  }\n}\n"
    )
    _symbols, edges = rows_of({"src/main.rs": program}, language="rust")
    (name,) = [e for e in edges if e["kind"] == "call" and e["target"] == "name"]
    assert (name["binding"], name["via"]) == ("bound", "self.cmd is a Cmd")


def test_a_go_call_on_a_type_from_outside_the_repository_is_external() -> None:
    program = 'package app\nimport "testing"\nfunc TestX(t *testing.T) {\n  t.Fatal("x")\n}\n'
    _symbols, edges = rows_of({"app/m_test.go": program}, language="go")
    (fatal,) = [e for e in edges if e["kind"] == "call" and e["target"] == "Fatal"]
    assert fatal["binding"] == "external"


def test_a_read_of_a_class_attribute_names_the_field_and_a_call_what_it_holds() -> None:
    program = (
        "def f(): pass\nclass User:\n    age: int = 0\n    handler = f\n"
        "    def label(self):\n        return self.age\n"
        "def use(u: User):\n    print(u.age, User.handler)\n    User.handler()\n"
    )
    reached = {
        (e["start_line"], e["kind"], e["target"]): (
            link.binding,
            link.symbol["qualname"] if link.symbol else None,
        )
        for e, link in linked({"m.py": program})
        if e["kind"] in ("use", "call") and e["target"] in ("age", "handler")
    }
    assert reached == {
        (6, "use", "age"): ("bound", "User.age"),  # self.age
        (8, "use", "age"): ("bound", "User.age"),  # u.age, u annotated User
        (8, "use", "handler"): ("bound", "User.handler"),  # a read names the field
        (9, "call", "handler"): ("bound", "f"),
    }


def test_a_call_names_the_method_where_a_field_shares_its_name() -> None:
    """Java lets a field and a method share a name (`size`, `size()`):
    a call is the method's, whichever is declared first."""
    program = (
        "package app;\nclass Box {\n  int size;\n  int size() { return size; }\n"
        "  void run() { size(); this.size(); }\n}\n"
    )
    found = {
        (e["start_line"], e["start_col"]): link.symbol["kind"] if link.symbol else None
        for e, link in linked({"app/Box.java": program}, language="java")
        if e["kind"] == "call" and e["target"] == "size"
    }
    assert found and set(found.values()) == {"method"}


def test_a_read_names_the_attribute_it_reads() -> None:
    """`t.expand` reads a property whose getter returns `self._expand`: the
    property, not the field it returns; `self.size` reads the attribute
    __init__ sets, whatever value flows into it."""
    program = (
        "class T:\n    def __init__(self, size):\n        self._expand = False\n"
        "        self.size = size\n    @property\n    def expand(self):\n"
        "        return self._expand\n    def width(self):\n        return self.size\n"
        "def use(t: T):\n    return t.expand\n"
    )
    reads = {
        (e["start_line"], e["target"]): link.symbol["qualname"] if link.symbol else None
        for e, link in linked({"m.py": program})
        if e["kind"] == "use" and e["target"] in ("expand", "size")
    }
    assert reads[(11, "expand")] == "T.expand"
    assert reads[(9, "size")] == "T.size"


def reads_on(program: str, line: int) -> dict[str, str | None]:
    """What each read on one line of ``m.py`` names, by the name read."""
    return {
        e["target"]: link.symbol["qualname"] if link.symbol else None
        for e, link in linked({"m.py": program})
        if e["kind"] == "use" and e["start_line"] == line
    }


def test_a_read_names_the_field_whatever_value_flows_into_it() -> None:
    """`p.nargs` reads Parameter.nargs, though what flows into it is another
    class's field (`nargs = self.type.arity`): not ParamType.arity."""
    program = (
        "class ParamType:\n    arity: int = 1\n"
        "class Parameter:\n    def __init__(self, t: ParamType):\n        self.type = t\n"
        "        nargs = self.type.arity\n        self.nargs = nargs\n"
        "def use(p: Parameter):\n    return p.nargs\n"
    )
    assert reads_on(program, 9) == {"nargs": "Parameter.nargs"}


def test_a_read_of_a_property_names_the_property_not_what_it_returns() -> None:
    """`t.connect` reads the property, even where the getter returns a value
    the rules can follow (an instance of another class)."""
    program = (
        "class D:\n    pass\n"
        "class T:\n    def __init__(self):\n        self._c = D()\n"
        "    @property\n    def connect(self):\n        return self._c\n"
        "class Pool:\n    def __init__(self, t: T):\n        self.t = t\n"
        "    def go(self):\n        return self.t.connect\n"
    )
    assert reads_on(program, 13) == {"t": "Pool.t", "connect": "T.connect"}


def test_a_chain_reads_the_attributes_on_its_way() -> None:
    """`self.kind.title()` and `w.kind.title()` read the property `kind` on
    the way to `title`: a reference to it, as a direct read is; a dunder on
    the way (`self.__class__.__name__`) is no row."""
    program = (
        "class W:\n    @property\n    def kind(self) -> str:\n        return 'x'\n"
        "    def show(self):\n        return self.kind.title(), self.__class__.__name__\n"
        "def use(w: W):\n    return w.kind.upper()\n"
    )
    assert reads_on(program, 6) == {"kind": "W.kind", "__name__": None}
    assert reads_on(program, 8) == {"kind": "W.kind"}


# twenty thousand tests on one name: each use asks for the span around it
# by a binary search and a bounded scan (indexer/guarded.py); a pass over
# every test per use took 80 s here
NARROWED = {
    "python": (
        "m.py",
        "class A:\n    def m(self): pass\ndef f(x):\n"
        + "    if isinstance(x, A):\n        x.m()\n" * 20_000,
    ),
    "typescript": (
        "m.ts",
        "class A {\n  m() {}\n}\nfunction f(x) {\n"
        + "  if (x instanceof A) {\n    x.m();\n  }\n" * 20_000
        + "}\n",
    ),
}


@pytest.mark.timeout(30)  # linear: the quadratic pass took 80 s
@pytest.mark.parametrize("language", sorted(NARROWED))
def test_many_narrowing_tests_of_one_name_each_bind_their_own_block(language: str) -> None:
    path, program = NARROWED[language]
    bound = [e for e, _reached, _linker in bound_calls({path: program}, language=language)]
    assert sum(1 for e in bound if e["target"] == "m") == 20_000
