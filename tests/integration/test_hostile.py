"""Hostile input and faults, as an attacker or an unlucky user meets them: no
read outside the repository, no secret printed, corruption never served as
exact or overlay, crafted trees and odd file names never fatal, store errors
one line, and no traceback on stderr in any of it.

Over 400 lines as one concept: each hostile input beside the one line it must produce.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pygit2
import pytest

from freshindex.catalog.layout import read_manifest, read_pointer
from freshindex.cli import main
from freshindex.core.gitrepo import open_repo
from freshindex.service import QueryService
from freshindex.storage import open_store
from tests.integration.test_service import get, serving
from tests.repos import SAMPLE_FILES, commit_all, git, make_repo, write_files

pytestmark = pytest.mark.slow

# what /etc/passwd and the secrets below hold: never in any output
PASSWD_MARK = "root:x:0:0"
SECRET_MARK = "hunter2-do-not-print"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def build(capsys: pytest.CaptureFixture[str], repo: Path, tmp_path: Path) -> str:
    """A file store with a build of the repository's HEAD."""
    store = (tmp_path / "store").as_uri()
    argv = ["--repo", str(repo), "--store", store, "build", "--runner", "threads", "--shards", "2"]
    code, _, err = run(capsys, *argv)
    assert code == 0, err
    return store


def one_line(code: int, err: str, expected: int, needle: str = "") -> None:
    assert code == expected, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert needle in lines[0], lines[0]


@pytest.fixture
def hostile(prefect_api: str, tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A built repository holding secrets and symlinks that lead out of it."""
    files: dict[str, str | bytes] = {
        **SAMPLE_FILES,
        ".env": f"TOKEN={SECRET_MARK}\n",
        "id_rsa": f"-----BEGIN KEY-----\n{SECRET_MARK}\n",
        "deploy/.aws/credentials": f"[default]\naws_secret_access_key = {SECRET_MARK}\n",
        "config/settings.py": "DEBUG = False\n",
    }
    repo = make_repo(tmp_path / "repo", files)
    (repo / "passwd_link").symlink_to("/etc/passwd")
    (repo / "outside").symlink_to("/etc")
    (repo / "innocent.py").symlink_to(".env")
    commit_all(repo, "links")
    store = (tmp_path / "store").as_uri()
    assert (
        main(
            ["--repo", str(repo), "--store", store, "build", "--runner", "threads", "--shards", "4"]
        )
        == 0
    )
    yield repo, store


TRAVERSALS = [
    "/etc/passwd",
    "../x",
    "../../../../etc/passwd",
    "app/../../../../etc/passwd",
    "passwd_link",
    "outside/passwd",
    str(Path("/etc/passwd")),
]
SECRETS = [".env", "id_rsa", "deploy/.aws/credentials", "innocent.py", "./.env"]


@pytest.mark.parametrize("target", TRAVERSALS + SECRETS)
def test_context_refuses_paths_outside_and_secrets(
    hostile: tuple[Path, str], capsys: pytest.CaptureFixture[str], target: str
) -> None:
    repo, store = hostile
    code, out, err = run(capsys, "--repo", str(repo), "--store", store, "context", target)
    one_line(code, err, 2)
    assert PASSWD_MARK not in out + err and SECRET_MARK not in out + err


def test_http_refuses_paths_outside_and_secrets(hostile: tuple[Path, str]) -> None:
    repo, store = hostile
    from urllib.parse import quote

    with serving(QueryService(open_repo(repo), open_store(store))) as base:
        for target in TRAVERSALS + SECRETS:
            code, body = get(base, f"/context?target={quote(target)}")
            assert code == 400, (target, body)
            assert PASSWD_MARK.encode() not in body and SECRET_MARK.encode() not in body
            assert json.loads(body)["error"]
        # an inside file still works
        code, body = get(base, "/context?target=app/models.py")
        assert code == 200 and b"def persist" in body


def test_secrets_are_recorded_as_secret_and_never_dumped(
    hostile: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    repo, store = hostile
    # a dirty secret and a dirty file that is a link to it: overlays read neither
    (repo / ".env").write_text(f"TOKEN={SECRET_MARK}-changed\n")
    (repo / "also_secret.py").symlink_to("deploy/.aws/credentials")
    for table in ("documents", "symbols", "edges"):
        code, out, err = run(
            capsys, "--repo", str(repo), "--store", store, "dump", "--table", table
        )
        assert code == 0, err
        assert SECRET_MARK not in out + err
    docs = {
        json.loads(line)["path"]: json.loads(line) for line in out.splitlines()[1:]
    }  # the documents dump, envelope line first
    code, out, err = run(
        capsys, "--repo", str(repo), "--store", store, "dump", "--table", "documents"
    )
    docs = {json.loads(line)["path"]: json.loads(line) for line in out.splitlines()[1:]}
    for path in (".env", "id_rsa", "deploy/.aws/credentials"):
        assert docs[path]["reason"] == "secret", docs[path]
    assert docs["passwd_link"]["reason"] == "symlink"
    code, out, err = run(
        capsys, "--repo", str(repo), "--store", store, "--json", "context", "persist"
    )
    assert code == 0, err
    assert SECRET_MARK not in out and PASSWD_MARK not in out


# --- corruption is never served as exact or overlay ---------------------------------------


def _table_file(store: str, table: str = "symbols") -> Path:
    s = open_store(store)
    manifest = read_manifest(s, read_pointer(s).pointer.version)  # type: ignore[union-attr]
    entry = max((t for t in manifest.tables if t.table == table), key=lambda t: t.bytes)
    return Path(s.local_path(entry.key))  # type: ignore[arg-type]


def _flip_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def _truncate_manifest(store: str) -> None:
    s = open_store(store)
    path = Path(s.local_path(f"versions/{read_pointer(s).pointer.version}/manifest.json"))  # type: ignore[union-attr, arg-type]
    path.write_bytes(path.read_bytes()[:100])


CORRUPTIONS = {
    "flipped-byte": lambda store: _flip_byte(_table_file(store)),
    "deleted-file": lambda store: _table_file(store).unlink(),
    "truncated-manifest": _truncate_manifest,
    "garbage-pointer": lambda store: Path(open_store(store).local_path("current.json")).write_bytes(
        b"\x00{not json"
    ),  # type: ignore[arg-type]
}


@pytest.mark.parametrize("corruption", sorted(CORRUPTIONS))
def test_corruption_is_never_served_as_exact(
    prefect_api: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], corruption: str
) -> None:
    repo = make_repo(tmp_path / "repo", SAMPLE_FILES)
    store = build(capsys, repo, tmp_path)
    # a query before the damage: the process has checked these files once
    assert run(capsys, "--repo", str(repo), "--store", store, "defs", "persist")[0] == 0
    CORRUPTIONS[corruption](store)

    code, out, err = run(capsys, "--repo", str(repo), "--store", store, "--json", "status")
    assert "Traceback" not in err
    if code == 0:
        doc = json.loads(out)
        assert doc["freshness"] not in ("exact", "overlay"), doc
        assert doc["reasons"], doc
    else:
        one_line(code, err, code)
    for kind in ("defs", "refs"):
        code, out, err = run(
            capsys, "--repo", str(repo), "--store", store, "--json", kind, "persist"
        )
        assert code != 0 or json.loads(out)["freshness"] not in ("exact", "overlay"), out
        if code:
            one_line(code, err, code)
    code, out, err = run(capsys, "--repo", str(repo), "--store", store, "verify")
    assert code != 0 and "Traceback" not in err


def test_corruption_turns_healthz_503(prefect_api: str, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", SAMPLE_FILES)
    store = (tmp_path / "store").as_uri()
    assert (
        main(
            ["--repo", str(repo), "--store", store, "build", "--runner", "threads", "--shards", "2"]
        )
        == 0
    )
    with serving(QueryService(open_repo(repo), open_store(store))) as base:
        assert get(base, "/healthz")[0] == 200
        _flip_byte(_table_file(store, "edges"))
        code, body = get(base, "/healthz")
        assert code == 503, body
        assert "sha256" in json.loads(body)["problems"][0]


# --- crafted trees and odd names ----------------------------------------------------------


def _commit_tree_with_dotdot(repo_path: Path) -> str:
    """A commit whose tree has an entry named '..' (git refuses to make one;
    the objects are written byte by byte), made the branch's HEAD."""
    repo = pygit2.Repository(str(repo_path))
    blob = repo.create_blob(b"def evil():\n    pass\n")
    head = repo.head.peel(pygit2.Commit)
    inner = repo.odb.write(pygit2.GIT_OBJECT_TREE, b"100644 evil.py\0" + blob.raw)
    entries = sorted(
        [(e.name, e.filemode, e.id.raw) for e in head.tree] + [("..", 0o40000, inner.raw)]
    )
    raw = b"".join(f"{mode:o} {name}".encode() + b"\0" + oid for name, mode, oid in entries)
    tree = repo.odb.write(pygit2.GIT_OBJECT_TREE, raw)
    sig = pygit2.Signature("t", "t@example.com")
    return str(repo.create_commit("refs/heads/main", sig, sig, "crafted", tree, [head.id]))


def test_a_tree_entry_named_dotdot_breaks_no_query(
    prefect_api: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path / "repo", SAMPLE_FILES)
    _commit_tree_with_dotdot(repo)
    store = build(capsys, repo, tmp_path)
    code, out, err = run(capsys, "--repo", str(repo), "--store", store, "--json", "status")
    assert code == 0, err
    doc = json.loads(out)
    assert any("invalid" in r for r in doc["reasons"]), doc
    assert doc["freshness"] != "exact"
    for argv in (("defs", "persist"), ("refs", "persist"), ("dump", "--table", "documents")):
        code, out, err = run(capsys, "--repo", str(repo), "--store", store, *argv)
        assert code == 0, err
        assert "Traceback" not in err
    assert '"reason": "invalid-path"' in out


def test_non_utf8_and_control_character_names(
    prefect_api: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path / "repo", SAMPLE_FILES)
    raw_name = os.fsencode(str(repo)) + b"/caf\xe9.py"
    fd = os.open(raw_name, os.O_WRONLY | os.O_CREAT, 0o644)
    os.write(fd, b"def latin1_named():\n    pass\n")
    os.close(fd)
    write_files(repo, {"new\nline.py": "def newline_named():\n    pass\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "odd names")
    store = build(capsys, repo, tmp_path)
    code, out, err = run(capsys, "--repo", str(repo), "--store", store, "--json", "status")
    assert code == 0, err
    assert json.loads(out)["freshness"] == "exact"
    code, out, err = run(
        capsys, "--repo", str(repo), "--store", store, "dump", "--table", "documents"
    )
    assert code == 0, err
    docs = {json.loads(line)["path"]: json.loads(line) for line in out.splitlines()[1:]}
    assert docs["new\nline.py"]["status"] == "parsed", docs["new\nline.py"]
    odd = [p for p in docs if p.startswith("caf")]
    assert len(odd) == 1, sorted(docs)
    assert "\\xe9" in odd[0] or "é" not in odd[0]  # the byte, escaped losslessly
    code, out, err = run(
        capsys, "--repo", str(repo), "--store", store, "--json", "defs", "newline_named"
    )
    assert code == 0 and [r["path"] for r in json.loads(out)["results"]] == ["new\nline.py"]


# --- store errors fail fast, in one line --------------------------------------------------


def test_store_errors_are_one_line(
    sample_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    for uri, needle in (
        ("file:///proc/freshindex-store", "store"),
        (f"file://{a_file}/sub", "store"),
        ("file:relative/store", "absolute"),
        ("file://host/abs", "absolute"),
    ):
        code, _, err = run(
            capsys, "--repo", str(sample_repo), "--store", uri, "build", "--runner", "threads"
        )
        one_line(code, err, 2, needle)


@pytest.mark.parametrize(
    ("api", "at", "runner"),
    [
        ("session", "shards", "threads"),
        ("embedded", "staging", "dask"),
        ("embedded", "shards", "dask"),
    ],
)
def test_s3_server_stopped_mid_build_is_one_line(
    prefect_api: str, tmp_path: Path, api: str, at: str, runner: str
) -> None:
    """moto stops while the build plans or while shard tasks write: the build
    fails within bounded time, with one error line and no traceback (nor a
    library's complaint that its own endpoint went away), and nothing becomes
    current. ``embedded``: the command starts and stops its own Prefect API."""
    import subprocess
    import time

    import boto3

    from tests.conftest import BIN, _start_moto, stop

    files: dict[str, str | bytes] = {
        f"pkg{i // 50}/mod{i}.py": f"def f{i}(x):\n    return g{i}(x) + {i}\n\n\ndef g{i}(x):\n    return x\n"
        for i in range(1500)
    }
    repo = make_repo(tmp_path / "repo", files)
    proc, url = _start_moto(threaded=True)
    env = {**os.environ, "AWS_ENDPOINT_URL": url, "AWS_ACCESS_KEY_ID": "testing",
           "AWS_SECRET_ACCESS_KEY": "testing-secret", "AWS_REGION": "us-east-1"}  # fmt: skip
    env.pop("PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL", None)  # the CLI's own default
    if api == "embedded":
        env = {k: v for k, v in env.items() if not k.startswith("PREFECT_API")}
        env["PREFECT_HOME"] = str(tmp_path / "prefect-home")
    s3 = boto3.client("s3", endpoint_url=url, region_name="us-east-1",
                      aws_access_key_id="testing", aws_secret_access_key="testing-secret")  # fmt: skip
    s3.create_bucket(Bucket="midbuild")
    build = subprocess.Popen(
        [str(BIN / "freshindex"), "--repo", str(repo), "--store", "s3://midbuild/i",
         "build", "--runner", runner, "--shards", "64", "--workers", "1"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and build.poll() is None:
            listed = s3.list_objects_v2(Bucket="midbuild", Prefix="i/versions/")
            keys = [o["Key"] for o in listed.get("Contents", [])]
            if any(("/shards/" if at == "shards" else "staging.json") in k for k in keys):
                break
            time.sleep(0.1)
        stop(proc)
        _, err = build.communicate(timeout=300)
    finally:
        if build.poll() is None:
            build.kill()
        stop(proc)
    assert build.returncode not in (0, None), err
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in err, err
    assert lines[-1].startswith("freshindex: "), err
    assert len(lines) <= 2, err  # the progress line, then the error


@pytest.mark.parametrize("backend,kill_at", [("file", "staging"), ("s3", "shards")])
def test_a_killed_publisher_with_its_embedded_api_does_not_block_the_store(
    tmp_path: Path, s3_server: str, backend: str, kill_at: str
) -> None:
    """SIGKILL a build and everything it started (its embedded Prefect API
    among them) while it holds the publish slot: the slot's count stays in
    the Prefect database and its lease died with that API. The next build
    finds the slot orphaned and publishes within the documented bound."""
    import signal
    import subprocess
    import time

    from freshindex.tasks.lock import ORPHAN_SECONDS
    from tests.conftest import BIN, new_bucket

    files: dict[str, str | bytes] = {
        f"m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(600)
    }
    repo = make_repo(tmp_path / "repo", files)
    store = (
        (tmp_path / "store").as_uri() if backend == "file" else f"s3://{new_bucket(s3_server)}/i"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
    env["PREFECT_HOME"] = str(tmp_path / "prefect-home")  # the embedded API's database
    cmd = [str(BIN / "freshindex"), "--repo", str(repo), "--store", store, "build",
           "--runner", "threads", "--shards", "32", "--workers", "1"]  # fmt: skip
    # -v: the first build says when it holds the slot, which it asks for in
    # the background while shards are written (flows/build.py)
    said = tmp_path / "first.stderr"
    with said.open("wb") as err_file:
        first = subprocess.Popen([cmd[0], "-v", *cmd[1:]], env=env, stdout=subprocess.DEVNULL,
                                 stderr=err_file, start_new_session=True)  # fmt: skip
    s = open_store(store)
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and first.poll() is None:
            keys = list(s.list("versions/"))
            if (
                any(k.endswith("staging.json") for k in keys)
                if kill_at == "staging"
                else any("/shards/" in k for k in keys)
                and "publish slot" in said.read_text(errors="replace")
            ):
                break
            time.sleep(0.05)
        assert first.poll() is None, "the first build ended before the kill point"
    finally:
        os.killpg(first.pid, signal.SIGKILL)  # the build and every process it started
        first.wait()
    started = time.monotonic()
    second = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    waited = time.monotonic() - started
    assert second.returncode == 0, second.stderr
    assert "Traceback" not in second.stderr
    assert read_pointer(s).pointer is not None
    # the bound: the orphan threshold, plus a build of 600 files and an API start
    assert waited < ORPHAN_SECONDS + 90, waited
    if kill_at == "shards":  # it held the slot: recovered by the reset, said in one line
        assert "no live holder" in second.stderr, second.stderr
