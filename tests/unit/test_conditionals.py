"""Preprocessor conditionals written inside a construct, which the C and C++
grammars cannot place (indexer/conditionals.py): a file whose error swallowed
its rest is read again with their first branches, and kept so only when that
has fewer errors."""

from __future__ import annotations

import pytest

from freshindex.indexer import conditionals
from tests.linked import linked, rows_of

# leveldb's util/env_posix.cc in small: the `#if` splits Limiter's
# initializer list, and every later class became a member of Limiter
INITIALIZER = """\
namespace app {

class Limiter {
 public:
  Limiter(int most)
      :
#if !defined(NDEBUG)
        most_(most),
#endif  // !defined(NDEBUG)
        left_(most) {
  }
  bool Acquire() { return left_ > 0; }

 private:
  int most_;
  int left_;
};

class File {
 public:
  void Close() { Sync(); }
  void Sync() {}
};

class Env {
 public:
  void Start() {}
};

}  // namespace app
"""


def _qualnames(files: dict[str, str], language: str = "cpp") -> set[str]:
    return {s["qualname"] for s in rows_of(files, language)[0]}


def test_a_conditional_in_an_initializer_list_keeps_the_classes_after_it_in_place() -> None:
    names = _qualnames({"env.cc": INITIALIZER})
    assert {"app.Limiter.Acquire", "app.File.Close", "app.Env.Start"} <= names
    assert not any(n.startswith("app.Limiter.File") or n.startswith("Limiter.") for n in names)
    calls = {
        e["target"]: link.symbol["qualname"]
        for e, link in linked({"env.cc": INITIALIZER}, "cpp")
        if e["kind"] == "call" and link.binding == "bound"
    }
    assert calls["Sync"] == "app.File.Sync"


def test_the_first_branch_is_read_and_the_others_blanked() -> None:
    source = b"void f(int a,\n#ifdef WIDE\n       long b\n#else\n       int b\n#endif\n       );\n"
    spans = conditionals.first_branches(source)
    read = conditionals.blanked(source, spans)
    assert len(read) == len(source) and read.count(b"\n") == source.count(b"\n")
    assert b"long b" in read and b"int b\n" not in read and b"#" not in read


def test_extern_c_braces_in_cplusplus_groups_are_blanked() -> None:
    source = b'#ifdef __cplusplus\nextern "C" {\n#endif\nint f(void);\n#ifdef __cplusplus\n}  /* extern "C" */\n#endif\n'
    read = conditionals.blanked(source, conditionals.first_branches(source))
    assert b"extern" not in read and b"}" not in read and b"int f(void);" in read


def test_a_conditional_between_declarations_is_left_alone() -> None:
    source = """\
#ifdef _WIN32
int open_file(const char* name) { return 1; }
#else
int open_file(const char* name) { return 2; }
#endif
int close_file(int fd) { return open_file("x"); }
"""
    assert conditionals.first_branches(source.encode()) == []
    # both branches' definitions are kept: the file parses, nothing is reread
    names = [s["qualname"] for s in rows_of({"io.c": source}, "c")[0]]
    assert names.count("open_file") == 2


@pytest.mark.timeout(30)  # linear: a quadratic scan would take hours here
def test_a_hostile_run_of_directives_is_scanned_in_linear_time() -> None:
    source = b"int x = f(1,\n" + b"#if A\n2,\n#else\n3,\n" * 20_000 + b"#endif\n" * 20_000 + b");\n"
    spans = conditionals.first_branches(source)
    assert len(spans) == 3 * 20_000  # each group's two directives and its other branch
    read = conditionals.blanked(source, spans)  # nested spans overlap: each byte once
    assert read.startswith(b"int x = f(1,\n") and b"#" not in read and b"3," not in read


@pytest.mark.timeout(30)  # each line is read once, however the directives continue
def test_continued_directive_lines_are_read_once() -> None:
    source = b"int x = f(1,\n" + b"#if A \\\n" * 50_000 + b"  B\n2,\n#endif\n);\n"
    spans = conditionals.first_branches(source)
    assert len(spans) == 2  # one group: its directive (all its lines) and its #endif
    read = conditionals.blanked(source, spans)
    assert b"#" not in read and b"2," in read
