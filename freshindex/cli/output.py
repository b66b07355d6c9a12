"""How a command prints: one JSON document on stdout with --json, else the
human form; progress always on stderr."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any


class Output:
    def __init__(self, as_json: bool):
        self.json = as_json

    def doc(self, value: Any, human: Callable[[], None]) -> None:
        if self.json:
            sys.stdout.write(json.dumps(value, sort_keys=True, default=str) + "\n")
        else:
            human()

    @staticmethod
    def progress(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)
