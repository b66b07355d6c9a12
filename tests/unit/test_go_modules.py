"""Go import paths resolved under a go.mod's module path
(indexer/go_modules.py), before the match by trailing folders."""

from __future__ import annotations

from freshindex.indexer.go_modules import module_path, modules
from freshindex.indexer.resolve import PathIndex

MANIFESTS: dict[str, bytes] = {
    "go.mod": b"// the root module\nmodule github.com/spf13/cobra // comment\n\ngo 1.15\n",
    "tools/go.mod": b'module "github.com/spf13/cobra/tools"\n',
    "empty/go.mod": b"go 1.21\n",
    "vendor/x/go.mod": b"module x\n",
}
PATHS = [
    "command.go",
    "command_test.go",
    "doc/md_docs.go",
    "tools/gen/main.go",
    "other/doc/x.go",
]


def test_a_go_mod_names_its_module() -> None:
    assert modules(MANIFESTS) == {
        "github.com/spf13/cobra": "",
        "github.com/spf13/cobra/tools": "tools",
    }
    assert module_path(b"modulefoo bar\n") == ""
    assert module_path(b"\xff\xfe") == ""


def test_an_import_under_a_module_path_is_the_folder_beside_its_go_mod() -> None:
    index = PathIndex.of_tree(PATHS, {}, (), None, MANIFESTS)
    # the root package: no trailing folder of the tree is named `cobra`
    assert (
        index.resolve("go", "doc/md_docs.go", "github.com/spf13/cobra", "Command") == "command.go"
    )
    # `doc` twice in the tree: the module's, not other/doc
    assert index.resolve("go", "command.go", "github.com/spf13/cobra/doc", "X") == "doc/md_docs.go"
    # a nested module's path is longer, and wins
    assert index.resolve("go", "doc/md_docs.go", "github.com/spf13/cobra/tools/gen", "M") == (
        "tools/gen/main.go"
    )
    # outside every module: the trailing folders, as before
    assert index.resolve("go", "command.go", "example.com/other/doc", "X") == "other/doc/x.go"
    assert index.digest != PathIndex.of_tree(PATHS, {}, (), None, {}).digest
