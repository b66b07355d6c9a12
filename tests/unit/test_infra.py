"""infra/ and the Dockerfile, checked statically: no Docker engine runs on these machines."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def compose() -> dict:  # type: ignore[type-arg]
    return yaml.safe_load((ROOT / "infra" / "docker-compose.yml").read_text())


def test_compose_has_every_service_the_readme_names() -> None:
    services = set(compose()["services"])
    named = set(
        re.findall(
            r"^\| `([a-z-]+)`(?:, `([a-z-]+)`)?", (ROOT / "infra" / "README.md").read_text(), re.M
        )
    )
    expected = {n for pair in named for n in pair if n}
    assert expected and expected <= services


def test_compose_workers_use_the_project_image_and_one_prefect_api() -> None:
    s = compose()["services"]
    assert s["dask-scheduler"]["build"]["dockerfile"] == "Dockerfile"
    image = s["dask-scheduler"]["image"]
    for name in ("dask-worker", "build", "query"):
        assert s[name]["image"] == image
        assert s[name]["environment"]["PREFECT_API_URL"] == "http://prefect-server:4200/api"
    assert "tcp://dask-scheduler:8786" in s["dask-worker"]["entrypoint"]
    assert "--dask-address" in s["build"]["command"]
    assert "postgresql" in s["prefect-server"]["environment"]["PREFECT_API_DATABASE_CONNECTION_URL"]
    assert "mb" in s["minio-init"]["entrypoint"]


def test_compose_commands_are_valid_freshindex_arguments() -> None:
    from freshindex.cli.parser import build_parser

    s = compose()["services"]
    build = build_parser().parse_args(s["build"]["command"])
    assert build.command == "build" and build.dask_address == "tcp://dask-scheduler:8786"
    query = build_parser().parse_args(s["query"]["command"])
    assert query.command == "serve" and query.updates and query.port == 8321
    assert f"{query.port}:{query.port}" in s["query"]["ports"]
    # bound beyond loopback with --updates: serve refuses to start without a token
    assert "FRESHINDEX_TOKEN" in s["query"]["environment"]
    assert s["query"]["environment"]["FRESHINDEX_STORE"].startswith("s3://")


def test_dockerfile_is_slim_non_root_and_installs_from_pyproject() -> None:
    text = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11-slim", text, re.M)
    assert re.search(r"^USER (?!root)\S+", text, re.M)
    # the tested versions, and the one real tree: the package folder alone
    assert "pip install -c constraints.txt ." in text
    assert re.search(r"^COPY [^\n]*constraints\.txt", text, re.M)
    assert "COPY freshindex ./freshindex" in text
    for folder in ("flows", "tasks", "indexer", "storage"):
        assert f"COPY {folder}" not in text  # signposts into the package, not code
        assert (ROOT / folder).resolve() == (ROOT / "freshindex" / folder).resolve()
        assert not (ROOT / "freshindex" / folder).is_symlink()
    assert '"freshindex"' in text  # the console script is the entrypoint


def test_compose_prefect_server_batches_its_task_run_recorder() -> None:
    """The server settings freshindex applies to the servers it starts
    (flows/runtime.py) are the compose server's too."""
    from freshindex.flows.api import SERVER_SETTINGS

    env = compose()["services"]["prefect-server"]["environment"]
    assert {k: str(env.get(k)) for k in SERVER_SETTINGS} == SERVER_SETTINGS


def test_compose_worker_and_deploy_step_match_prefect_yaml() -> None:
    """The one-shot deploy registers prefect.yaml's deployments on the pool the
    worker polls; the worker names the repository its flow runs read."""
    s = compose()["services"]
    project = yaml.safe_load((ROOT / "prefect.yaml").read_text())
    pools = {d["work_pool"]["name"] for d in project["deployments"]}
    assert len(pools) == 1
    pool = pools.pop()
    deploy = " ".join(s["prefect-deploy"]["command"])
    assert f"work-pool create {pool} --type process" in deploy and "deploy --all" in deploy
    assert s["prefect-worker"]["entrypoint"] == ["prefect", "worker", "start", "--pool", pool]
    env = s["prefect-worker"]["environment"]
    assert env["FRESHINDEX_REPO"] == "/repo" and env["FRESHINDEX_STORE"].startswith("s3://")
    assert (
        "COPY pyproject.toml README.md constraints.txt prefect.yaml ./"
        in (ROOT / "Dockerfile").read_text()
    )
    # module entrypoints: the worker needs the installed package, not a checkout
    for d in project["deployments"]:
        module, _, name = d["entrypoint"].partition(":")
        assert module.startswith("freshindex.flows.") and name.endswith("_flow")
        assert d["name"].endswith("-pool")  # never the served deployments' names
