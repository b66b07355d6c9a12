"""Where freshindex keeps local caches: ``$XDG_CACHE_HOME/freshindex`` (default ``~/.cache``).

objects/   S3 table files, content-addressed by sha256 (reader)
overlay/   parsed overlay files, zstd JSON keyed by content (overlay)
mirrors/   per-worker bare mirror clones (tasks; FRESHINDEX_MIRROR_DIR overrides)
one-cert.pem   the single-certificate CA file for plain-http Prefect APIs (runtime)
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir(*parts: str) -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base.joinpath("freshindex", *parts)
