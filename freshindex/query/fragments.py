"""What a context package is made of: the definitions reached (nodes), the
fragments that may go in (candidates) by tier, and the package itself."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

CALLER_CONTEXT_LINES = 3
MAX_DISTANCE = 2
MAX_NEIGHBOURS = 40  # callers or callees walked per definition
HISTORY_COMMITS = 3
CONFIG_HEAD_LINES = 40  # a package manifest's head: name, dependencies, entry points
HISTORY_WALK = 400  # commits looked at for the history notes

MAP_FILES = 60  # files ranked for the map tier (query/ranking.py)
MAP_DEFINITIONS = 3  # signatures shown per map entry: ~35 tokens an entry
# the map's share of the budget before the implementation tier; what the
# later tiers leave goes to more map entries
MAP_SHARE = 0.5

# tiers, in the order the budget is filled
TARGET, CONTRACT, RISK, MAP, IMPLEMENTATION, CONFIG, HISTORY = range(7)
TIER_NAMES = ("target", "contract", "high-risk", "map", "implementation", "config", "history")


@dataclass
class Node:
    """A definition reached by the walk."""

    symbol_id: str
    path: str
    qualname: str
    kind: str
    start_line: int
    end_line: int
    exported: bool
    origin: str
    distance: int
    role: str  # target | caller | callee | test | candidate
    why: str


@dataclass
class Candidate:
    tier: int
    distance: int
    role: str
    path: str
    start_line: int
    end_line: int
    name: str
    why: str
    origin: str
    node: Node | None = None  # a definition: its summary can stand in
    text: str | None = None  # given text (history, a contract's summary)
    form: str = "body"


@dataclass
class Package:
    items: list[dict[str, Any]] = field(default_factory=list)
    left_out: list[dict[str, Any]] = field(default_factory=list)
    used: int = 0

    def paths(self) -> set[str]:
        return {str(i["path"]) for i in self.items}
