"""A Rust crate named by its Cargo.toml outside its own src/
(indexer/rust_crates.py), as integration tests and sibling crates name it."""

from __future__ import annotations

from freshindex.indexer.resolve import PathIndex
from freshindex.indexer.rust_crates import crates, roots

MANIFESTS: dict[str, bytes] = {
    "Cargo.toml": b'[workspace]\nmembers = ["core", "cli"]\n',  # names no package
    "core/Cargo.toml": b'[package]\nname = "acme-core"\nversion = "0.1.0"\n',
    "cli/Cargo.toml": b'[package]\nname = "acme-cli"\n[lib]\nname = "acme"\npath = "lib/main_lib.rs"\n',
    "broken/Cargo.toml": b"[package\nname = ",
    "odd/Cargo.toml": b"[package]\nname = 3\n",
    "vendor/dep/Cargo.toml": b'[package]\nname = "dep"\n',
    "outside/Cargo.toml": b'[package]\nname = "up"\n[lib]\npath = "../x/lib.rs"\n',
}


def test_crates_are_named_as_code_names_them() -> None:
    assert crates(MANIFESTS) == {
        "acme_core": "core/src",  # dashes become underscores
        "acme": "cli/lib",  # [lib] name and path win
        "up": "outside/src",  # a lib path out of the crate's folder is not followed
    }


def test_a_use_of_a_crate_by_name_resolves_in_its_root() -> None:
    paths = [
        "core/src/lib.rs",
        "core/src/store.rs",
        "core/tests/it.rs",
        "cli/lib/main_lib.rs",
        "cli/lib/net/mod.rs",
    ]
    index = PathIndex.of_tree(paths, {}, (), None, MANIFESTS)
    assert index.resolve("rust", "core/tests/it.rs", "acme_core::store", "Store") == (
        "core/src/store.rs"
    )
    assert index.resolve("rust", "core/tests/it.rs", "acme_core", "open") == "core/src/lib.rs"
    assert index.resolve("rust", "core/src/store.rs", "acme::net", "Client") == "cli/lib/net/mod.rs"
    # another crate, not in the tree: nothing
    assert index.resolve("rust", "core/tests/it.rs", "serde::de", "Visitor") is None
    # the names are part of what every resolution depends on
    assert index.digest != PathIndex.of_tree(paths, {}, (), None, {}).digest


def test_a_module_of_the_same_name_in_the_crate_comes_first() -> None:
    manifests = {
        "Cargo.toml": b'[package]\nname = "util"\n',
        "x/Cargo.toml": b'[package]\nname = "x"\n',
    }
    paths = ["src/lib.rs", "src/main.rs", "src/util.rs", "x/src/lib.rs"]
    index = PathIndex.of_tree(paths, {}, (), None, manifests)
    # `use util::f` in src/main.rs: its own module util.rs (2015 paths), not crate x's
    assert index.resolve("rust", "src/main.rs", "util", "f") == "src/util.rs"
    assert index.resolve("rust", "src/main.rs", "x", "f") == "x/src/lib.rs"


def test_a_hostile_manifest_adds_nothing() -> None:
    deep = b"[package]\nname = " + b"[" * 100_000 + b"]" * 100_000 + b"\n"
    files = {
        "a/Cargo.toml": deep,
        "b/Cargo.toml": b"\xff\xfe[package]",
        "c/Cargo.toml": b'[package]\nname = "c"\n[lib]\npath = 7\n',
        "d/Cargo.toml": b'package = "x"\nlib = [1]\n',
    }
    assert crates(files) == {"c": "c/src"}


def test_crate_paths_name_the_folder_of_the_targets_root_file() -> None:
    manifests = {
        "Cargo.toml": b'[package]\nname = "rg"\n[[bin]]\nname = "rg"\npath = "crates/core/main.rs"\n'
        b'[[test]]\nname = "it"\npath = "tests/tests.rs"\n[[bench]]\npath = 7\n'
        b'[[example]]\npath = "/etc/x.rs"\n[[example]]\npath = "../up/x.rs"\n',
    }
    assert roots(manifests) == ["crates/core", "tests"]
    paths = [
        "crates/core/main.rs",
        "crates/core/flags/mod.rs",
        "crates/core/flags/defs.rs",
        "crates/core/flags/parse.rs",
        "tests/tests.rs",
        "tests/util.rs",
        "tests/feature.rs",
    ]
    index = PathIndex.of_tree(paths, {}, (), None, manifests)
    defs = "crates/core/flags/defs.rs"
    assert index.resolve("rust", defs, "crate::flags::parse", "parse_low_raw") == (
        "crates/core/flags/parse.rs"
    )
    assert index.resolve("rust", "tests/feature.rs", "crate::util", "Dir") == "tests/util.rs"
    # the path set alone resolves nothing there: the manifests are part of the digest
    assert PathIndex(paths).resolve("rust", defs, "crate::flags::parse", "f") is None
    assert PathIndex(paths).digest != index.digest
