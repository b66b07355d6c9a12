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
```
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import tomllib
from dataclasses import asdict, dataclass, field

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
)


@dataclass(frozen=True)
class IndexConfig:
    include: tuple[str, ...] = ("**",)
    exclude: tuple[str, ...] = ()
    languages: tuple[str, ...] = tuple(sorted(LANGUAGES))
    shards: int = 128
    overlay_budget_files: int = 500
    rebuild_patterns: tuple[str, ...] = DEFAULT_REBUILD_PATTERNS
    # 2 MB: the largest hand-written source file in CPython's stdlib is ~0.7 MB;
    # bigger files are nearly always generated data.
    max_file_bytes: int = 2_000_000
    # Work bound per file for tree-sitter, which has no timeout of its own in
    # 0.26: a parse may take factor x bytes / 100 progress steps (see
    # indexer/extract.py for the measurement); past that the file is skipped
    # with reason parse-budget.
    max_parse_work_factor: int = 8
    secret_patterns: tuple[str, ...] = field(default=SECRET_PATTERNS)

    def canonical_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True, separators=(",", ":"))

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
    known = {f for f in IndexConfig.__dataclass_fields__ if f != "secret_patterns"}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ConfigError(f"{CONFIG_FILE}: unknown key(s) {', '.join(unknown)}")
    values: dict[str, object] = {}
    for key, value in raw.items():
        default = getattr(IndexConfig, key)
        if isinstance(default, tuple):
            if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
                raise ConfigError(f"{CONFIG_FILE}: {key} must be a list of strings")
            values[key] = tuple(value)
        elif isinstance(default, int):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(f"{CONFIG_FILE}: {key} must be a positive integer")
            values[key] = value
    langs = values.get("languages", ())
    bad = sorted(set(langs) - set(LANGUAGES)) if isinstance(langs, tuple) else []
    if bad:
        raise ConfigError(
            f"{CONFIG_FILE}: unsupported language(s) {', '.join(bad)}; "
            f"supported: {', '.join(sorted(LANGUAGES))}"
        )
    return IndexConfig(**values)  # type: ignore[arg-type]


def matches_any(path: str, patterns: tuple[str, ...] | list[str]) -> bool:
    return any(_glob_regex(p).match(path) for p in patterns)


@functools.cache
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """gitignore-flavoured globs: ``*`` stays in one segment, ``**`` crosses them,
    and a pattern without ``/`` matches the file's name at any depth."""
    pat = pattern.strip("/")
    anchored = "/" in pat
    out = []
    i = 0
    while i < len(pat):
        c = pat[i]
        if pat.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pat.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(c))
            i += 1
    body = "".join(out)
    prefix = "" if anchored else "(?:.*/)?"
    # a pattern naming a directory also matches everything under it
    # DOTALL: a file name may hold a newline, and `**` must still match it
    return re.compile(f"^{prefix}{body}(?:/.*)?$", re.DOTALL)
