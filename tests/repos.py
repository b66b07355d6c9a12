"""Small generated repositories with symbols at known lines, one file per language."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    out = subprocess.run(
        ["git", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, **GIT_ENV, **(env or {})},
    )
    return out.stdout.strip()


def write_files(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content)


def commit_all(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def make_repo(root: Path, files: dict[str, str | bytes], message: str = "initial") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    write_files(root, files)
    commit_all(root, message)
    return root


def build_template(root: Path, files: dict[str, str | bytes], shards: int = 4) -> tuple[Path, Path]:
    """A repository and a file store with its build, made once per module:
    tests take copies (copy_built) instead of building again."""
    from freshindex.cli import main

    repo = make_repo(root / "repo", files)
    store = root / "store"
    code = main(
        ["--repo", str(repo), "--store", store.as_uri(), "build", "--runner", "threads",
         "--shards", str(shards)]
    )  # fmt: skip
    assert code == 0
    return repo, store


def copy_built(template: tuple[Path, Path], dest: Path) -> tuple[Path, str]:
    """A test's own copy of a built template: (repo, store URI)."""
    repo, store = template
    shutil.copytree(repo, dest / "repo", symlinks=True)
    shutil.copytree(store, dest / "store", symlinks=True)
    return dest / "repo", (dest / "store").as_uri()


# Each entry: the symbol, its file and the 1-based line of its definition.
SAMPLE_FILES: dict[str, str | bytes] = {
    "app/models.py": """\
\"\"\"Models.\"\"\"


class Model:
    def save(self):
        return persist(self)


def persist(obj):
    return obj
""",
    "app/service.py": """\
from app.models import Model, persist


class UserService(Model):
    def get_user(self, uid):
        user = Model()
        user.save()
        return persist(user)


def make_service():
    return UserService()
""",
    "web/users.ts": """\
export interface User {
  id: string;
}

export function getUser(id: string): User {
  return { id };
}
""",
    "web/app.ts": """\
import { getUser } from './users';

export class UserRepo {
  find(id: string) {
    return getUser(id);
  }
}
""",
    "web/widget.js": """\
import { render } from './dom.js';

export function mount(el) {
  return render(el);
}
""",
    "web/dom.js": """\
export function render(el) {
  return el;
}
""",
    "web/view.tsx": """\
export function View(props: { name: string }) {
  return <div>{props.name}</div>;
}
""",
    "go/server/server.go": """\
package server

type Server struct {
	name string
}

func (s *Server) Start() error {
	return helper()
}

func helper() error { return nil }

func NewServer() *Server {
	return &Server{}
}
""",
    "rust/src/lib.rs": """\
pub struct Store {
    items: Vec<u32>,
}

impl Store {
    pub fn new() -> Self {
        Store { items: Vec::new() }
    }
}

pub fn open_store() -> Store {
    Store::new()
}
""",
    "java/com/example/UserService.java": """\
package com.example;

public class UserService {
    public User find(int id) {
        return load(id);
    }

    private User load(int id) {
        return new User();
    }
}
""",
    "README.md": "# sample\n",
    "data/blob.bin": b"\x00\x01\x02binary\x00",
    ".env": "SECRET=1\n",
}

# (name, path, line, kind) that `defs` must find in SAMPLE_FILES
EXPECTED_DEFS = [
    ("Model", "app/models.py", 4, "class"),
    ("save", "app/models.py", 5, "method"),
    ("persist", "app/models.py", 9, "function"),
    ("get_user", "app/service.py", 5, "method"),
    ("getUser", "web/users.ts", 5, "function"),
    ("User", "web/users.ts", 1, "interface"),
    ("UserRepo", "web/app.ts", 3, "class"),
    ("mount", "web/widget.js", 3, "function"),
    ("View", "web/view.tsx", 1, "function"),
    ("Start", "go/server/server.go", 7, "method"),
    ("Server", "go/server/server.go", 3, "struct"),
    ("new", "rust/src/lib.rs", 6, "method"),
    ("open_store", "rust/src/lib.rs", 11, "function"),
    ("find", "java/com/example/UserService.java", 4, "method"),
]

# (name, caller path, line, resolved path or None) that `refs` must find
EXPECTED_REFS = [
    ("persist", "app/models.py", 6, "app/models.py"),
    ("persist", "app/service.py", 8, "app/models.py"),
    ("getUser", "web/app.ts", 5, "web/users.ts"),
    ("render", "web/widget.js", 4, "web/dom.js"),
    ("helper", "go/server/server.go", 8, "go/server/server.go"),
    ("new", "rust/src/lib.rs", 12, "rust/src/lib.rs"),
    ("load", "java/com/example/UserService.java", 5, "java/com/example/UserService.java"),
]


def recipe_tree(repo: Path) -> str:
    """The reference article's worktreeTree recipe, with git itself, in a
    temporary index: read-tree HEAD, add -A, write-tree."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        git(repo, "read-tree", "HEAD", env=env)
        git(repo, "-c", "core.filemode=true", "add", "-A", "--", ".", env=env)
        return git(repo, "write-tree", env=env)
