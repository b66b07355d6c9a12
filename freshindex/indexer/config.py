"""The effective indexing configuration: ``freshindex.toml`` at the repository root.

The file is read from the commit being indexed (not the worktree), so a
version's ``configDigest`` describes exactly the rules its rows were made
with. Every field has a default; an absent file means all defaults.

```toml
include = ["**"]
exclude = ["third_party/**"]          # added to the built-in secret rules
languages = ["python", "go"]          # default: every supported language
shards = 128
overlay_budget_files = 500
rebuild_patterns = ["package-lock.json", "go.mod"]
max_file_bytes = 2000000
include_paths = ["include", "arch/x86/include"]  # C and C++ include roots
```
"""

from __future__ import annotations

import functools
import hashlib
import json
import tomllib
from typing import Annotated

from pathspec import PathSpec
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from freshindex.core.exceptions import ConfigError
from freshindex.indexer.languages import LANGUAGES

CONFIG_FILE = "freshindex.toml"

# Files that usually hold secrets are never read into an index, whatever the
# user's include says: the index is shipped to object storage and to agents.
SECRET_PATTERNS: tuple[str, ...] = (
    ".env",
    ".env.*",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.keystore",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    ".netrc",
    ".pgpass",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    "credentials.json",
    "**/.aws/credentials",
    "**/.aws/config",
    "**/.ssh/**",
    "**/.docker/config.json",
)

# third-party code checked in: npm's, and Composer's and Go's vendor folders
DEFAULT_EXCLUDE: tuple[str, ...] = ("node_modules/**", ".git/**", "vendor/**")

# Changes to these make an incremental update (or an overlay) unsound: they
# change how every other file resolves. Override with rebuild_patterns.
DEFAULT_REBUILD_PATTERNS: tuple[str, ...] = (
    CONFIG_FILE,
    "package.json",
    "package-lock.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "tsconfig.json",
    "jsconfig.json",
    "go.mod",
    "go.sum",
    "Cargo.toml",
    "Cargo.lock",
    "pyproject.toml",
    "setup.cfg",
    "poetry.lock",
    "uv.lock",
    "pom.xml",
    "build.gradle",
    "compile_commands.json",
)


PatternList = tuple[str, ...]
Positive = Annotated[int, Field(strict=True, ge=1)]


class IndexConfig(BaseModel):
    """The rules a version's rows were made with; frozen, and refused whole
    (one line naming the key) when a value or key is wrong."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    include: PatternList = ("**",)
    exclude: PatternList = ()
    languages: tuple[str, ...] = tuple(sorted(LANGUAGES))
    shards: Positive = 128
    overlay_budget_files: Positive = 500
    rebuild_patterns: PatternList = DEFAULT_REBUILD_PATTERNS
    # 2 MB: the largest hand-written source file in CPython's stdlib is ~0.7 MB;
    # bigger files are nearly always generated data.
    max_file_bytes: Positive = 2_000_000
    # Work bound per file for tree-sitter, which has no timeout of its own in
    # 0.26: a parse may take factor x bytes / 100 progress steps (see
    # indexer/extract.py for the measurement); past that the file is skipped
    # with reason parse-budget.
    max_parse_work_factor: Positive = 8
    # C and C++: folders of the repository an `#include <...>` is looked up
    # in, first to last, before compile_commands.json's and the roots found
    # by suffix (indexer/bind_c.py)
    include_paths: PatternList = ()
    # not settable from the file: the built-in rules always apply
    secret_patterns: PatternList = SECRET_PATTERNS

    @field_validator("include_paths")
    @classmethod
    def _inside(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        bad = [p for p in value if p.startswith("/") or ".." in p.split("/")]
        if bad:
            raise ValueError(f"include path {bad[0]!r} is not a folder inside the repository")
        return value

    @field_validator("languages")
    @classmethod
    def _supported(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        bad = sorted(set(value) - set(LANGUAGES))
        if bad:
            raise ValueError(
                f"unsupported language(s) {', '.join(bad)}; supported: {', '.join(sorted(LANGUAGES))}"
            )
        return value

    def canonical_json(self) -> str:
        return json.dumps(self.model_dump(), sort_keys=True, separators=(",", ":"))

    @functools.cached_property
    def digest(self) -> str:  # every answer compares it: made once per config
        return "sha256:" + hashlib.sha256(self.canonical_json().encode()).hexdigest()

    def is_secret(self, path: str) -> bool:
        return matches_any(path, self.secret_patterns)

    def is_excluded(self, path: str) -> bool:
        return matches_any(path, (*DEFAULT_EXCLUDE, *self.exclude)) or not matches_any(
            path, self.include
        )

    def forces_rebuild(self, path: str) -> bool:
        return matches_any(path, self.rebuild_patterns)


@functools.lru_cache(maxsize=16)
def parse_config(data: bytes | None) -> IndexConfig:
    """Parse freshindex.toml bytes (None: the file is absent) into an IndexConfig.
    The same bytes give the same (immutable) config: each answer reads the
    file, and parses it only when it changed."""
    if data is None:
        return IndexConfig()
    try:
        raw = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise ConfigError(f"{CONFIG_FILE} is not valid TOML: {err}") from err
    if "secret_patterns" in raw:
        raise ConfigError(f"{CONFIG_FILE}: unknown key(s) secret_patterns")
    # TOML arrays arrive as lists; the model's tuples are its frozen form
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in raw.items()}
    try:
        return IndexConfig.model_validate(values)
    except ValidationError as err:
        first = err.errors()[0]
        key = ".".join(str(part) for part in first["loc"][:1]) or "?"
        if first["type"] == "extra_forbidden":
            unknown = sorted(set(raw) - set(IndexConfig.model_fields))
            raise ConfigError(f"{CONFIG_FILE}: unknown key(s) {', '.join(unknown)}") from None
        if first["type"] == "value_error":
            raise ConfigError(f"{CONFIG_FILE}: {first['ctx']['error']}") from None
        kind = "a positive integer" if key in _INTEGERS else "a list of strings"
        raise ConfigError(f"{CONFIG_FILE}: {key} must be {kind}") from None


_INTEGERS = {k for k, f in IndexConfig.model_fields.items() if f.annotation is int}


@functools.cache
def _spec(patterns: tuple[str, ...]) -> PathSpec:
    return PathSpec.from_lines("gitignore", patterns)


def matches_any(path: str, patterns: tuple[str, ...] | list[str]) -> bool:
    """gitignore-style globs (pathspec): ``*`` stays in one segment, ``**``
    crosses them, a pattern without ``/`` matches a name at any depth, and a
    folder's pattern matches everything under it. A newline in a file name
    is matched as any other character (pathspec's ``.`` would stop at it)."""
    return _spec(tuple(patterns)).match_file(path.replace("\n", "\0"))
