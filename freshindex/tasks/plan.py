"""Planning a build: resolve the commit, read its config, list its tree, stage the version."""

from __future__ import annotations

from dataclasses import dataclass, field

from prefect import task
from prefect.cache_policies import NO_CACHE

from freshindex.catalog.layout import PointerState, new_version_id, read_pointer, write_staging
from freshindex.catalog.manifest import Submodule
from freshindex.core import gitrepo
from freshindex.core.exceptions import ConfigError
from freshindex.indexer.config import IndexConfig
from freshindex.tasks.source import config_at, tree_entries
from freshindex.tasks.tables import store_for


@dataclass(frozen=True)
class ShardJob:
    """Everything a shard task needs, small enough to ship to every Dask worker.

    Workers re-list the tree themselves (cached per process) instead of
    receiving 128 file lists: the commit is the contract, not the list."""

    git_dir: str
    store_uri: str
    commit: str
    tree: str
    version: str
    shards: int
    config: IndexConfig
    # None: workers read git_dir (a shared path). A URL: each worker keeps its
    # own bare mirror clone and fetches until it has the commit.
    mirror_url: str | None = None


@dataclass(frozen=True)
class BuildPlan:
    job: ShardJob
    entries: int  # tree entries: the documents count validation expects
    base: PointerState  # the pointer this build will compare-and-swap against
    submodules: list[Submodule] = field(default_factory=list)
    # a branch other than main's (update --rev BRANCH): published to its own
    # pointer (catalog.branch_pointer_key) with no record; current.json stays main's
    branch: str | None = None

    @property
    def version(self) -> str:
        return self.job.version


@task(name="plan-build", cache_policy=NO_CACHE)
def plan_build(
    repo_path: str,
    store_uri: str,
    rev: str = "HEAD",
    shards: int | None = None,
    mirror_url: str | None = None,
) -> BuildPlan:
    repo = gitrepo.open_repo(repo_path)
    commit = gitrepo.resolve_commit(repo, rev)
    config = config_at(repo, commit)
    n = shards or config.shards
    if not 1 <= n <= 4096:
        raise ConfigError(f"shards must be between 1 and 4096, not {n}")
    entries = tree_entries(str(repo.path), str(commit.tree_id))
    submodules = [
        Submodule(path=e.path, head=e.oid, tree=None) for e in entries if e.mode == 0o160000
    ]
    store = store_for(store_uri)
    base = read_pointer(store)
    version = new_version_id(str(commit.id))
    write_staging(store, version, {"sourceCommit": str(commit.id), "shards": n})
    job = ShardJob(
        git_dir=str(repo.path),
        store_uri=store_uri,
        commit=str(commit.id),
        tree=str(commit.tree_id),
        version=version,
        shards=n,
        config=config,
        mirror_url=mirror_url,
    )
    return BuildPlan(job=job, entries=len(entries), base=base, submodules=submodules)
