"""freshindex.toml as a frozen model: gitignore-style globs through pathspec,
and every wrong key or value refused in one line."""

from __future__ import annotations

import pytest

from freshindex.core.exceptions import ConfigError
from freshindex.indexer.config import IndexConfig, matches_any, parse_config


@pytest.mark.parametrize(
    ("path", "pattern", "expected"),
    [
        ("pkg/mod.pyc", "*.py[co]", True),
        ("pkg/mod.pyo", "*.py[co]", True),
        ("pkg/mod.py", "*.py[co]", False),
        ("a/b/c.txt", "b/**", False),  # a pattern with a slash is anchored
        ("b/x/c.txt", "b/**", True),
        ("deep/er/third_party/x.c", "third_party", True),  # a folder at any depth
        ("docs/a.md", "**/*.md", True),
        ("odd\nname/.ssh/id", "**/.ssh/**", True),  # a newline in a folder's name
        ("odd\n.pem", "*.pem", True),
    ],
)
def test_globs_follow_gitignore(path: str, pattern: str, expected: bool) -> None:
    assert matches_any(path, [pattern]) is expected


def test_secrets_stay_out_whatever_include_says() -> None:
    config = parse_config(b'include = ["**"]\n')
    assert config.is_secret("svc/.env.production")
    assert config.is_secret("home/u/.aws/credentials")
    assert not config.is_secret("src/env.py")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b"shards = 0", "shards"),
        (b"shards = true", "shards"),
        (b'include = "src/**"', "include"),
        (b"include = [1]", "include"),
        (b'languages = ["cobol"]', "cobol"),
        (b"colour = 1", "unknown key(s) colour"),
        (b"secret_patterns = []", "unknown key(s) secret_patterns"),
        (b"shards = [", "not valid TOML"),
        (b'include_paths = ["../usr/include"]', "not a folder inside the repository"),
        (b'include_paths = ["/usr/include"]', "not a folder inside the repository"),
    ],
)
def test_wrong_keys_and_values_are_one_line(text: bytes, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_config(text)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_the_model_is_frozen_and_its_digest_stable() -> None:
    config = IndexConfig()
    with pytest.raises(ValueError):
        config.shards = 3  # type: ignore[misc]
    assert parse_config(None).digest == config.digest
    assert parse_config(b"shards = 16").digest != config.digest
