"""Which repository and store a deployed flow run works on.

A deployment registered from prefect.yaml runs on whatever worker picks it
up, so its repository and store are read when it runs: from the run's
parameters when given, else from the worker's environment
(``FRESHINDEX_REPO``, ``FRESHINDEX_STORE``). A value templated into the
deployment at ``prefect deploy`` time would be the deploying machine's."""

from __future__ import annotations

import os
from typing import NamedTuple

from freshindex.core.exceptions import BadInput

REPO_ENV = "FRESHINDEX_REPO"
STORE_ENV = "FRESHINDEX_STORE"


class Target(NamedTuple):
    repo: str
    store: str


def target(repo: str | None, store: str | None) -> Target:
    """The run's repository and store; BadInput, one line, when no repository is named."""
    from freshindex.core.gitrepo import open_repo, store_default

    repo = repo or os.environ.get(REPO_ENV) or None
    if not repo:
        raise BadInput(
            f"no repository: pass the `repo` parameter or set {REPO_ENV} in the worker's environment"
        )
    store = store or os.environ.get(STORE_ENV) or store_default(open_repo(repo))
    return Target(repo, store)
