"""The typed shape of every answer: the freshness envelope, definitions,
references, context packages, health and errors, camelCase as the contract
spells them.

One answer, three front ends: the pipeline (query/answer.py) returns these
models; the CLI prints them (``document``), the HTTP service serves them and
publishes them as its OpenAPI response schemas, so a client (or a fuzzer) can
check every body it gets, and the MCP tools return the agent's cut of the
same objects (``for_agent``: the certificate first, lists cut to a limit).
The models allow fields beyond the ones named: answers grow by adding, never
by renaming."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, TypeVar

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

    def agent_status(self) -> AgentStatus:
        return AgentStatus(
            certificate=self.certificate(),
            indexVersion=self.indexVersion,
            relation=self.relation.value,
            lagCommits=self.lagCommits,
            changedFiles=self.changedFiles,
            dirtyFiles=self.dirtyFiles,
        )

    def certificate(self) -> Certificate:
        return Certificate(
            freshness=self.freshness.value,
            indexCommit=self.indexCommit,
            headCommit=self.headCommit,
            worktreeTree=self.worktreeTree,
            reasons=list(self.reasons),
        )


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
    blob: str | None = Field(default=None, description="git OID of the bytes these lines come from")


class Definition(Location):
    qualname: str | None = Field(default=None, description="the qualified name")
    symbolId: str | None = Field(default=None, description="the definition's id")
    language: str | None = None


class Reference(Location):
    binding: Literal["bound", "candidate", "external"] = Field(
        description="bound (to targetSymbolId, by the language's rules), candidate "
        "(name-matched, not provable) or external (outside the repository)"
    )
    via: str | None = Field(default=None, description="the rule that bound it")
    caller: str | None = Field(default=None, description="the enclosing definition")
    targetQualname: str | None = None
    targetSymbolId: str | None = Field(default=None, description="the definition it names")
    targetPath: str | None = None


class Group(_Answer):
    definition: Definition
    bound: list[Reference]
    dispatch: list[Reference] = Field(
        default=[],
        description="calls bound to a method this one overrides, made on an instance: "
        "they run this one when the receiver is of its class",
    )
    candidateCount: int


class Definitions(Envelope):
    results: list[Definition]
    complete: bool

    @classmethod
    def of(cls, doc: dict[str, Any]) -> Definitions:
        return cls.model_validate(doc)

    def for_agent(self, limit: int, path_hint: str | None = None) -> DefinitionList:
        results = [r for r in self.results if not path_hint or path_hint in r.path]
        return DefinitionList(
            certificate=self.certificate(),
            complete=self.complete,
            results=_declared(results[:limit]),
            omitted=max(0, len(results) - limit),
        )


class References(Envelope):
    results: list[Reference]
    definitions: list[Definition]
    groups: list[Group]
    bound: list[Reference]
    dispatch: list[Reference] = Field(
        default=[],
        description="calls bound to a method an asked one overrides, which may run it "
        "(dynamic dispatch); in results after the bound rows",
    )
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

    @classmethod
    def of(cls, doc: dict[str, Any]) -> References:
        """The model of a ``refs`` document. A row is in several lists
        (``results``, ``bound``, its group's): it is checked once, and the
        lists share the one object."""
        rows: dict[int, Reference] = {}
        defs = {id(d): Definition.model_validate(d) for d in doc["definitions"]}

        def checked(found: Iterable[dict[str, Any]]) -> list[Reference]:
            out = []
            for r in found:
                m = rows.get(id(r))
                if m is None:
                    m = rows[id(r)] = Reference.model_validate(r)
                out.append(m)
            return out

        groups = [
            Group(
                definition=defs.get(id(g["definition"])) or g["definition"],
                bound=checked(g["bound"]),
                dispatch=checked(g.get("dispatch", [])),
                candidateCount=g["candidateCount"],
            )
            for g in doc["groups"]
        ]
        return cls.model_validate(
            {
                **doc,
                "definitions": list(defs.values()),
                "groups": groups,
                **{
                    k: checked(doc[k])
                    for k in ("results", "bound", "dispatch", "candidates", "external")
                    if k in doc
                },
            }
        )

    def for_agent(self, limit: int) -> ReferenceList:
        return ReferenceList(
            certificate=self.certificate(),
            complete=self.complete,
            definitions=_declared(self.definitions[:limit]),
            results=_declared(self.results[:limit]),
            omitted=max(0, len(self.results) - limit),
            definitionsOmitted=max(0, len(self.definitions) - limit),
            boundCount=len(self.bound),
            dispatchCount=len(self.dispatch),
            candidateCount=len(self.candidates),
            externalCount=len(self.external),
            unfollowedCalls=self.unfollowedCalls,
        )


class Fragment(_Answer):
    """One piece of a context package, located; its text is in the markdown."""

    role: str = Field(
        description="target, contract, caller, callee, test, candidate, config, history"
    )
    tier: str = Field(description="the priority it was placed under")
    distance: int = Field(description="dependency distance from the target")
    path: str
    startLine: int
    endLine: int
    name: str = ""
    why: str = Field(description="how it relates to the target, and how that was bound")
    form: str = Field(description="body, summary (its body did not fit), lines, history")
    origin: Literal["index", "overlay", "source"]
    blob: str | None = Field(description="git OID of the bytes the text was cut from")
    tokens: int = Field(description="what the fragment costs as delivered, heading included")


class LeftOut(_Answer):
    role: str
    tier: str
    path: str
    name: str
    reason: str


class ContextPackage(Envelope):
    results: list[dict[str, Any]]
    items: list[dict[str, Any]] = []
    leftOut: list[LeftOut] = []
    omitted: int = 0
    markdown: str | None = Field(
        default=None, description="the package as markdown (the CLI prints it without --json)"
    )
    budgetTokens: int | None = None
    usedTokens: int | None = None
    tokenizer: str | None = None

    def for_agent(self) -> AgentContext:
        fields = Fragment.model_fields
        return AgentContext(
            certificate=self.certificate(),
            items=[Fragment(**{k: v for k, v in i.items() if k in fields}) for i in self.items],
            leftOut=_declared(self.leftOut),
            omitted=self.omitted,
            budgetTokens=self.budgetTokens or 0,
            usedTokens=self.usedTokens or 0,
            tokenizer=self.tokenizer or "",
        )


def document(answer: BaseModel) -> dict[str, Any]:
    """An answer as the JSON the CLI prints and HTTP serves: the fields it
    was given, none it was not (the contract's documents, unchanged)."""
    return answer.model_dump(mode="json", exclude_unset=True)


_Row = TypeVar("_Row", bound=BaseModel)


def _declared(rows: list[_Row]) -> list[_Row]:
    """Rows with only their model's named fields: what an agent is offered
    (the index's columns beyond them cost tokens and say nothing new)."""
    return [type(r).model_validate({k: getattr(r, k) for k in type(r).model_fields}) for r in rows]


# -- the agent's cut: what the MCP tools return --------------------------------


class Certificate(BaseModel):
    """Which version of the code an answer belongs to (compare worktreeTree
    with `git write-tree` of the worktree to check it yourself)."""

    freshness: Literal["exact", "overlay", "partial", "stale"]
    indexCommit: str | None
    headCommit: str | None
    worktreeTree: str | None
    reasons: list[str]


class DefinitionList(BaseModel):
    certificate: Certificate
    complete: bool = Field(
        description="false when partial or stale: an empty or short list proves nothing"
    )
    results: list[Definition]
    omitted: int = Field(
        default=0,
        description="results found but left out by 'limit' (ask again with a higher one)",
    )


class ReferenceList(BaseModel):
    certificate: Certificate
    complete: bool = Field(
        description="false when partial or stale, when no reference is bound and calls "
        "of the name could not be followed, or when the symbol is a variable, field or "
        "property whose reads its language's binder does not record (all but Python's): "
        "an empty or short list proves nothing"
    )
    results: list[Reference] = Field(
        description="bound first, then dispatch (calls of a method it overrides), then "
        "candidates, then external"
    )
    omitted: int = Field(
        default=0,
        description="results found but left out by 'limit' (ask again with a higher one)",
    )
    definitions: list[Definition] = Field(description="the definitions the symbol names")
    definitionsOmitted: int = Field(default=0, description="definitions left out by 'limit'")
    boundCount: int
    dispatchCount: int = Field(
        default=0, description="calls of a method it overrides that may run it"
    )
    candidateCount: int
    externalCount: int
    unfollowedCalls: int = Field(
        default=0,
        description="calls of the name the binder could not follow; with boundCount 0 the "
        "answer is not complete",
    )


class AgentStatus(BaseModel):
    certificate: Certificate
    indexVersion: str | None
    relation: str
    lagCommits: int | None
    changedFiles: int
    dirtyFiles: int


class AgentContext(BaseModel):
    certificate: Certificate
    items: list[Fragment]
    leftOut: list[LeftOut]
    omitted: int
    budgetTokens: int
    usedTokens: int
    tokenizer: str = Field(description="how tokens were counted (the default is an estimate)")


class SourceLines(BaseModel):
    certificate: Certificate
    path: str
    startLine: int
    endLine: int
    totalLines: int
    blob: str = Field(description="git OID of the whole file as it is now")
    origin: Literal["index", "overlay", "source"] = "source"
    text: str


class UpdateResult(BaseModel):
    outcome: str
    loaded: str | None = None
    version: str | None = None
    mode: str | None = None
    reason: str | None = None


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
