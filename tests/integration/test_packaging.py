"""The package as a user installs it: a wheel in a fresh venv, one `freshindex`
namespace in site-packages, and a build on a LocalCluster and on `dask
scheduler` / `dask worker` processes started with Dask's default config from a
working directory of their own."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import free_port, stop, wait_for_workers
from tests.repos import SAMPLE_FILES, make_repo

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
GENERIC_NAMES = ("storage", "tasks", "flows", "indexer")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with freshindex installed from a wheel built here, from a
    tree whose top-level links are plain files.

    The dependencies are not installed again (Prefect alone takes minutes):
    the venv sees the test venv's site-packages through a path file, which
    adds the folder to sys.path without running the path files in it, so the
    test venv's editable freshindex stays out of sight."""
    tmp = tmp_path_factory.mktemp("wheel")
    # from a copy: setuptools reuses a build/ folder in the source tree, and a
    # file there newer than its source would go into the wheel instead of it
    source = tmp / "source"
    shutil.copytree(
        ROOT,
        source,
        symlinks=True,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "build", "*.egg-info", "__pycache__", ".*_cache"
        ),
    )
    # as a checkout with core.symlinks=false has them (Git for Windows): the
    # top-level signposts are text files holding the link; the package is real
    for name in GENERIC_NAMES:
        link = source / name
        assert link.is_symlink(), name
        target = os.readlink(link)
        link.unlink()
        link.write_text(target)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp), str(source)],
        check=True,
        capture_output=True,
    )
    wheel = next(tmp.glob("freshindex-*.whl"))
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    site = Path(
        subprocess.run(
            [
                str(venv / "bin" / "python"),
                "-c",
                "import sysconfig; print(sysconfig.get_path('purelib'))",
            ],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    (site / "test-venv-deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps", str(wheel)],
        check=True,
        capture_output=True,
    )
    return venv


def _site(venv: Path) -> Path:
    return next((venv / "lib").glob("python3*/site-packages"))


def _env() -> dict[str, str]:
    """The environment a user has: no DASK_CONFIG, so Dask's defaults."""
    env = dict(os.environ)
    env.pop("DASK_CONFIG", None)
    return env


def test_site_packages_holds_one_namespace(installed: Path) -> None:
    site = _site(installed)
    for name in GENERIC_NAMES:
        assert not (site / name).exists(), f"top-level {name} installed"
        assert (site / "freshindex" / name / "__init__.py").is_file()
    assert (site / "freshindex" / "indexer" / "queries" / "python.scm").is_file()
    assert (site / "freshindex" / "flows" / "dask-quiet" / "freshindex-dask.yaml").is_file()
    # the installed package is the wheel's, not the checkout's
    out = subprocess.run(
        [
            str(installed / "bin" / "python"),
            "-c",
            "import freshindex.storage as s; print(s.__file__)",
        ],
        cwd=installed,
        env=_env(),
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert out.startswith(str(site)), out


@pytest.fixture
def default_cluster(installed: Path, prefect_api: str, tmp_path: Path) -> Iterator[str]:
    """`dask scheduler` and one `dask worker` from the fresh venv, Dask's default
    config, each in a working directory of its own (the worker spills into a
    `storage/` folder there, which once shadowed a top-level `storage`)."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    python = str(installed / "bin" / "python")
    procs: list[subprocess.Popen[bytes]] = []
    for name, argv in (
        (
            "scheduler",
            [
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--no-dashboard",
                "--dashboard-address",
                ":0",
            ],
        ),
        ("worker", ["worker", address, "--nthreads", "1", "--no-dashboard"]),
    ):
        cwd = tmp_path / name
        cwd.mkdir()
        procs.append(
            subprocess.Popen(
                [python, "-m", "dask", *argv],
                cwd=cwd,
                env=_env(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
    try:
        wait_for_workers(address, 1)
        yield address
    finally:
        for p in reversed(procs):
            stop(p)


def _cli(venv: Path, cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(venv / "bin" / "freshindex"), *argv],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_builds_from_the_wheel_on_a_local_and_a_default_dask_cluster(
    installed: Path, default_cluster: str, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "repo", SAMPLE_FILES)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    stores = {"remote": (tmp_path / "remote").as_uri(), "local": (tmp_path / "local").as_uri()}
    for kind, extra in (("remote", ["--dask-address", default_cluster]), ("local", [])):
        done = _cli(
            installed, elsewhere, "--repo", str(repo), "--store", stores[kind], "--json",
            "build", "--shards", "4", *extra,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["outcome"] == "published"
        assert "Traceback" not in done.stderr
    dumps = []
    for kind in ("remote", "local"):
        done = _cli(
            installed, elsewhere, "--repo", str(repo), "--store", stores[kind],
            "dump", "--table", "symbols", "--no-ids",
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        dumps.append(done.stdout.splitlines()[1:])
    assert dumps[0] == dumps[1] and dumps[0]
    done = _cli(
        installed,
        elsewhere,
        "--repo",
        str(repo),
        "--store",
        stores["remote"],
        "--json",
        "defs",
        "persist",
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["freshness"] == "exact"
    assert [r["path"] for r in answer["results"]] == ["app/models.py"]
