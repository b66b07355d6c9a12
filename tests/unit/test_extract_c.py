"""C and C++ extraction rules: headers, macros the grammar misreads, written
scopes, and the facts the C++ linker reads (indexer/queries/c.scm, cpp.scm,
indexer/scope_cpp.py, indexer/receivers_cpp.py)."""

from __future__ import annotations

from freshindex.indexer.extract import extract
from tests.unit.test_extract import _symbols


def test_c_loop_macro_before_a_call_is_a_call_only_in_a_body() -> None:
    src = b"foo_t x;\nLIST_HEAD(h) g(int y);\nvoid f(void) {\n\tfor_each_cpu(c)\n\t\tkfree(p);\n\tbar_t z;\n}\n"
    rows = extract("t.c", "c", src)
    got = {(e[1], e[2], e[4]) for e in rows.edges}
    # type uses at the top and in a body both stay; the misread call is a call
    assert {("", "foo_t", "type"), ("f", "bar_t", "type"), ("f", "kfree", "call")} <= got
    # at the top of a file the same shape is a prototype, not a call
    assert ("", "g", "declare") in got and not any(
        e[2] == "g" and e[4] == "call" for e in rows.edges
    )


def test_a_static_definition_behind_an_attribute_macro_has_no_external_linkage() -> None:
    # the grammar reads `static __always_inline __alloc_size(1)` as a declaration
    # of its own, missing its `;`, and the definition as starting at `void`
    src = (
        b"static __always_inline __alloc_size(1) void *kmalloc(size_t size, gfp_t flags)\n"
        b"{\n\treturn __kmalloc(size, flags);\n}\n"
        b"void *vmalloc(unsigned long size)\n{\n\treturn 0;\n}\n"
    )
    exported = {s[2]: s[-1] for s in extract("slab.h", "cpp", src).symbols}
    assert exported == {"kmalloc": False, "vmalloc": True}


def test_a_flood_of_using_lines_is_read_up_to_a_bound() -> None:
    from freshindex.indexer import scope_cpp

    src = b"".join(b"using namespace n%d;\n" % i for i in range(2000))
    src += b"int h() {\n" + b"".join(b"  f%d();\n" % i for i in range(2000)) + b"}\n"
    calls = [e for e in extract("a.cpp", "cpp", src).edges if e[4] == "call"]
    assert len(calls) == 2000
    for e in calls:
        _base, usings = scope_cpp.split_usings(e[13])
        assert len(usings) == scope_cpp.MAX_USINGS
        assert usings[0] == "namespace n0"  # the first lines, in order


def test_a_name_redeclared_in_every_block_takes_its_nearest_declaration() -> None:
    blocks = b"".join(b"  { Repo r; r.f(); }\n  { Other r; r.f(); }\n" for _ in range(1000))
    src = b"struct Repo { int f(); };\nstruct Other { int f(); };\nint h() {\n" + blocks + b"}\n"
    claims = [e[11] for e in extract("a.cpp", "cpp", src).edges if e[4] == "call"]
    assert claims == ["Repo.f", "Other.f"] * 1000


def test_class_macros_are_blanked_and_nothing_else() -> None:
    from freshindex.indexer.macros_cpp import without_class_macros

    # blanked in place: every byte keeps its offset
    blank = b" " * len(b"API_EXPORT")
    assert without_class_macros(b"class API_EXPORT Repo : public Base {") == (
        b"class " + blank + b" Repo : public Base {"
    )
    assert without_class_macros(b"struct API_EXPORT TestInfo final {") == (
        b"struct " + blank + b" TestInfo final {"
    )
    for unchanged in (
        b"class Repo final {",
        b"class Outer::Inner {",
        b"struct stat st;",
        b"static const struct file_operations fops_final = {",
    ):
        assert without_class_macros(unchanged) == unchanged


def test_lock_annotations_are_blanked_and_the_names_they_hid_are_read() -> None:
    from freshindex.indexer.macros_cpp import without_macros

    src = (
        b"#define GUARDED_BY(x) __attribute__((guarded_by(x)))\n"
        b"class Counter {\n"
        b" public:\n"
        b"  int Read() LOCKS_EXCLUDED(mu_) { return count_; }\n"
        b"  void Bump() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);\n"
        b"  void Raw() NO_THREAD_SAFETY_ANALYSIS {}\n"
        b" private:\n"
        b"  Mutex mu_;\n"
        b"  Version* const current_ GUARDED_BY(mu_);\n"
        b"  int count_ ABSL_GUARDED_BY(mu_) = 0;\n"
        b"};\n"
        b"void f() { LOCK_FUNCTION(x); }\n"
    )
    blanked = without_macros(src)
    assert len(blanked) == len(src)
    assert b"GUARDED_BY(x) __attribute__" in blanked  # the definition stays
    assert b"LOCK_FUNCTION(x);" in blanked  # a call is no annotation
    assert b"LOCKS_EXCLUDED" not in blanked and b"current_ " in blanked
    rows = extract("counter.h", "cpp", src)
    methods = {s[4] for s in rows.symbols if s[5] == "method"}
    assert methods == {"Counter.Read", "Counter.Bump", "Counter.Raw"}
    fields = {e[1]: e[11] for e in rows.edges if e[4] == "value"}
    assert fields == {"Counter.mu_": "Mutex", "Counter.current_": "Version"}


def test_fields_are_facts_for_cpp_classes_only() -> None:
    c_header = (
        b"struct device_ops {\n"
        b"  struct device *dev;\n"
        b"  int (*probe)(struct device *dev);\n"
        b"  u8 priv[] __aligned(8);\n"
        b"};\n"
        b"static inline int f(int old, int new, int size) { return g(old, new, size); }\n"
    )
    rows = extract("include/linux/dev.h", "cpp", c_header)
    # a C struct (pointers to functions, attribute macros) has no fact, and
    # C's variable `new` is no instantiation
    assert [e for e in rows.edges if e[4] == "value"] == []
    assert all(e[12] == "candidate" for e in rows.edges if e[2] in ("size", ""))
    cpp_header = (
        b"namespace kv {\n"
        b"struct Pair { Version* first; };\n"
        b"class Table { Cache* cache_; struct stat st_; };\n"
        b"}\n"
    )
    facts = {e[1]: e[11] for e in extract("kv/t.h", "cpp", cpp_header).edges if e[4] == "value"}
    assert facts == {"kv.Pair.first": "Version", "kv.Table.cache_": "Cache", "kv.Table.st_": "stat"}


def test_cpp_names_written_with_nested_scopes_are_members_of_them() -> None:
    src = (
        "namespace re {\n"
        "class Regexp { class ParseState; };\n"
        "class Regexp::ParseState {\n"
        " public:\n"
        "  bool Push();\n"
        "};\n"
        "bool Regexp::ParseState::Push() { return Finish(); }\n"
        "template <typename T> T Walker<T>::Walk() { return T(); }\n"
        "void re::Top::Inner::Deep() {}\n"
        "}\n"
    )
    rows = extract("parse.cc", "cpp", src.encode()).symbols
    pushes = sorted((r[7], r[4]) for r in rows if r[2] == "Push")
    # a nested class defined outside its class holds what its body declares,
    # and a method defined with two scopes written is a member of both
    assert pushes == [(5, "re.Regexp.ParseState.Push"), (7, "re.Regexp.ParseState.Push")]
    symbols = _symbols("parse.cc", src)
    assert symbols["re.Regexp.ParseState"][0] == "class"
    # a template's scope is named without its arguments
    assert symbols["re.Walker.Walk"][0] == "method"
    assert symbols["re.re.Top.Inner.Deep"][0] == "method"
    calls = [e for e in extract("parse.cc", "cpp", src.encode()).edges if e[2] == "Finish"]
    assert calls[0][1] == "re.Regexp.ParseState.Push"


def test_a_function_returning_a_pointer_to_a_pointer_or_a_reference_is_a_symbol() -> None:
    src = (
        "class Chain {\n"
        "  RawBlock* const& front() const { return b_; }\n"
        "  char** argv();\n"
        "};\n"
        "RawBlock* const& Chain::back() const { return b_; }\n"
        "char** names();\n"
    )
    symbols = _symbols("chain.h", src)
    assert {q for q, (kind, _, _) in symbols.items() if kind == "method"} == {
        "Chain.front",
        "Chain.argv",
        "Chain.back",
    }
    declared = [e[2] for e in extract("chain.h", "cpp", src.encode()).edges if e[4] == "declare"]
    assert declared == ["names"]


def test_attribute_macros_are_blanked_where_they_stand_for_attributes() -> None:
    from freshindex.indexer.macros_cpp import without_macros

    src = (
        b"#define ABSL_ATTRIBUTE_LIFETIME_BOUND [[clang::lifetimebound]]\n"
        b"class Options {\n"
        b" public:\n"
        b"  Options& set_size(int n) & ABSL_ATTRIBUTE_LIFETIME_BOUND { return *this; }\n"
        b"  ABSL_ATTRIBUTE_REINITIALIZES void Reset();\n"
        b"  ABSL_MUST_USE_RESULT bool ok() const;\n"
        b"  void* Get() ABSL_ATTRIBUTE_NONNULL(1);\n"
        b"  int size() const;\n"
        b"};\n"
    )
    blanked = without_macros(src)
    assert len(blanked) == len(src)
    assert blanked.startswith(b"#define ABSL_ATTRIBUTE_LIFETIME_BOUND")  # the definition stays
    assert b"NONNULL" not in blanked and b"MUST_USE" not in blanked
    methods = {
        q for q, (kind, _, _) in _symbols("options.h", src.decode()).items() if kind == "method"
    }
    assert methods == {
        "Options.set_size",
        "Options.Reset",
        "Options.ok",
        "Options.Get",
        "Options.size",
    }


def test_a_macro_alone_on_a_line_between_declarations_is_blanked() -> None:
    from freshindex.indexer.macros_cpp import bare_macro_lines

    src = (
        b'#include "a.h"\n\n'
        b"ABSL_POINTERS_DEFAULT_NONNULL\n\n"
        b"namespace app {\n"
        b"class Window : public QObject {\n"
        b"  Q_OBJECT\n"
        b" public:\n"
        b"  int Show();\n"
        b"};\n"
        b"enum Mode {\n  MODE_ONE,\n  MODE_TWO\n};\n"
        b"int flags = base |\n  EXTRA_FLAG\n  ;\n"
        b"}  // namespace app\n"
        b"FMT_END_NAMESPACE\n"
        b'const char* url = "http://x"  // a string\n'
        b"  SUFFIX_MACRO\n"
        b"  ;\n"
    )
    blanked = {src[a:b] for a, b in bare_macro_lines(src)}
    # before a namespace, atop a class body and after a line that closes one
    # (its `//` comment aside); never an enum's last enumerator or a line that
    # continues an expression, nor after a `//` inside a string
    assert blanked == {b"ABSL_POINTERS_DEFAULT_NONNULL", b"Q_OBJECT", b"FMT_END_NAMESPACE"}
    symbols = _symbols("window.h", src.decode())
    assert symbols["app.Window.Show"][0] == "method"


def test_macros_before_declarations_are_blanked() -> None:
    from freshindex.indexer.macros_cpp import without_macros

    # fmt's and leveldb's: export and constexpr macros where a declaration starts
    src = (
        b"namespace app {\n"
        b"FMT_EXPORT template <typename C> class Store {\n"
        b" public:\n"
        b"  FMT_CONSTEXPR Store(int v) : value_(v), size_(0) {}\n"
        b"  FMT_CONSTEXPR20 ~Store() {}\n"
        b"  int value_, size_;\n"
        b"};\n"
        b"LEVELDB_EXPORT const Store<int>* NewStore();\n"
        b"}  // namespace app\n"
        b"namespace later { void f() {} }\n"
    )
    blanked = without_macros(src)
    assert len(blanked) == len(src) and b"_EXPORT" not in blanked and b"FMT_" not in blanked
    symbols = _symbols("store.h", src.decode())
    assert {"app.Store", "app.Store.Store", "app.Store.~Store", "later.f"} <= set(symbols)
    # and where the macro may be a call's result type or a call, nothing is blanked
    kept = b"  MY_TYPE make(1);\n  CHECK_OK(run());\n  FOO_BAR x = f(1);\n"
    assert without_macros(kept) == kept


def test_a_specialization_is_a_class_and_a_class_body_is_a_scope() -> None:
    from tests.linked import linked

    src = (
        "namespace app {\n"
        "template <typename T> struct formatter;\n"
        "template <> struct formatter<int> {\n"
        "  int format(int v) { return v; }\n"
        "};\n"
        "class Box {\n"
        " public:\n"
        "  int* get() { return nullptr; }\n"
        "  int& operator*() { return *get(); }\n"
        "};\n"
        "}\n"
    )
    # the specialization's methods are its members, not free functions
    assert _symbols("fmt.h", src)["app.formatter.format"][0] == "method"
    assert "app.format" not in _symbols("fmt.h", src)
    # an operator is no definition the grammar names: a call in it is looked
    # up from its class, as C++ does
    calls = {
        e["target"]: link.symbol["qualname"]
        for e, link in linked({"box.h": src}, "cpp")
        if e["kind"] == "call" and link.binding == "bound"
    }
    assert calls["get"] == "app.Box.get"


def test_a_function_named_as_a_value_is_a_use_and_other_words_are_not() -> None:
    src = (
        b"int drv_open(void);\n"  # a prototype
        b"static int drv_irq(int irq) { return 0; }\n"
        b"static int drv_init(void)\n{\n"
        b"\tint drv_irqs = 1; /* drv_irq */\n"  # 5: a longer word, a comment
        b'\trequest_irq(1, drv_irq, "drv_irq");\n'  # 6: a string is no use
        b"\tops->open = drv_open;\n"  # 7
        b"\tregister_cb(&drv_irq, c ? drv_open : 0, (void *)drv_init);\n"  # 8
        b"\tdrv_irq(2);\n"  # 9: a call, not also a use
        b"\treturn drv_open_count;\n}\n"
        b"module_init(drv_init);\n"  # 12
    )
    uses = sorted((e[2], e[6], e[7]) for e in extract("drv.c", "c", src).edges if e[4] == "use")
    assert uses == [
        ("drv_init", 8, 49), ("drv_init", 12, 12), ("drv_irq", 6, 16), ("drv_irq", 8, 14),
        ("drv_open", 7, 13), ("drv_open", 8, 27),
    ]  # fmt: skip


def test_value_uses_stay_linear_in_a_file_of_many_functions() -> None:
    from freshindex.indexer import values_c

    # past a few dozen names the file is read once by one regex of them all;
    # a name longer than the bound is not looked for
    names = [f"fn_{i}" for i in range(20_000)] + ["x" * (values_c.MAX_NAME + 1)]
    src = b"".join(b"int fn_%d(void) { return 0; }\n" % i for i in range(20_000))
    src += b"void *table[] = { fn_7, fn_19999, " + names[-1].encode() + b" };\n"
    rows = extract("many.c", "c", src)
    assert sorted(e[2] for e in rows.edges if e[4] == "use") == ["fn_19999", "fn_7"]


def test_a_parameter_or_local_named_like_a_function_hides_it_where_declared() -> None:
    src = (
        b"int sign(int x) { return x < 0; }\n"
        b"int fill(int n) { return n; }\n"
        b"int show(const int& sign, int n) {\n"  # 3: a parameter hides sign()
        b"  auto f = [&]() { return put(sign); };\n"  # 4: in a lambda too
        b"  auto fill = n;\n"  # 5: so does a local
        b"  return put(fill);\n"
        b"}\n"
        b"int other() { return apply(sign, fill); }\n"  # 8: here they are the functions
    )
    uses = sorted((e[2], e[6]) for e in extract("a.cpp", "cpp", src).edges if e[4] == "use")
    assert uses == [("fill", 8), ("sign", 8)]
