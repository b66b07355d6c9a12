"""The typed shape of every answer: the freshness envelope, definitions,
references, context packages, health and errors, camelCase as the contract
spells them.

The HTTP service publishes these as its OpenAPI response schemas, so a client
(or a fuzzer) can check every body it gets. The models allow fields beyond
the ones named: answers grow by adding, never by renaming."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from freshindex.core.history import Relation
from freshindex.query.freshness import Freshness


class _Answer(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class Submodule(_Answer):
    path: str
    head: str | None = None
    tree: str | None = None


class Envelope(_Answer):
    """How the answer relates to the code as it is now (docs/contract.md)."""

    indexVersion: str | None
    indexCommit: str | None
    headCommit: str | None
    worktreeTree: str
    dirty: bool
    relation: Relation
    freshness: Freshness
    lagCommits: int | None
    changedFiles: int
    dirtyFiles: int
    reasons: list[str]
    submodules: list[Submodule]
    baseVersion: str | None = None
    baseCommit: str | None = None
    baseReason: str | None = None
    currentVersion: str | None = None
    worktreeSeq: int | None = None
    worktreeSource: str | None = None


class Location(_Answer):
    """Where a definition or reference is, in the file as it is now."""

    path: str
    name: str
    kind: str
    startLine: int = Field(ge=1)
    startCol: int = Field(ge=0)
    endLine: int = Field(ge=1)
    endCol: int = Field(ge=0)
    origin: Literal["index", "overlay", "source"]
    blob: str | None = None


class Definition(Location):
    qualname: str | None = None
    symbolId: str | None = None
    language: str | None = None


class Reference(Location):
    binding: Literal["bound", "candidate", "external"]
    via: str | None = None
    caller: str | None = None
    targetQualname: str | None = None
    targetSymbolId: str | None = None
    targetPath: str | None = None


class Group(_Answer):
    definition: Definition
    bound: list[Reference]
    candidateCount: int


class Definitions(Envelope):
    results: list[Definition]
    complete: bool


class References(Envelope):
    results: list[Reference]
    definitions: list[Definition]
    groups: list[Group]
    bound: list[Reference]
    candidates: list[Reference]
    external: list[Reference]
    complete: bool
    boundCount: int = 0
    candidateCount: int = 0
    unfollowedCalls: int = Field(
        default=0,
        description="calls of the name the binder could not follow (unknown receivers, "
        "dynamic dispatch): with no bound reference, the answer is not complete",
    )


class ContextPackage(Envelope):
    results: list[dict[str, Any]]
    markdown: str
    budgetTokens: int | None = None
    usedTokens: int | None = None


class Health(_Answer):
    healthy: bool
    problems: list[str]
    notes: list[str] = []
    loaded: str | None = None


class Reloaded(_Answer):
    loaded: str


class UpdateSummary(_Answer):
    outcome: str | None = None
    loaded: str | None = None


class Problem(_Answer):
    """Every error the HTTP service answers: one line saying what was wrong."""

    error: str
