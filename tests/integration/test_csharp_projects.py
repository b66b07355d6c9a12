"""C# names a project imports for all its files, read from a built index:
`global using` lines and the `<Using>` items of the project file, whose blob
the index recorded (indexer/msbuild.py), each for its own project only, and
those of a Directory.Build.targets for every project below it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.repos import build_template, copy_built, write_files

FILES = {
    "src/App/App.csproj": (
        '<Project Sdk="Microsoft.NET.Sdk">\n  <ItemGroup>\n'
        '    <Using Include="Acme.Helpers" />\n  </ItemGroup>\n</Project>\n'
    ),
    "src/App/GlobalUsings.cs": "global using Acme.Events;\n",
    "src/App/Use.cs": (
        "namespace App;\n\nclass Use\n{\n    void F() { Raise.Twice(); Scalar.Make(); }\n}\n"  # 5
    ),
    "src/Lib/Lib.csproj": '<Project Sdk="Microsoft.NET.Sdk" />\n',
    "src/Lib/Helpers/Raise.cs": (
        "namespace Acme.Helpers;\n\npublic static class Raise\n{\n"
        "    public static void Twice() { }\n}\n"
    ),
    "src/Lib/Events/Scalar.cs": (
        "namespace Acme.Events;\n\npublic class Scalar\n{\n"
        "    public static Scalar Make() => new Scalar();\n}\n"
    ),
    "src/Other/Other.csproj": '<Project Sdk="Microsoft.NET.Sdk" />\n',
    "src/Other/Call.cs": "namespace Other;\n\nclass Call\n{\n    void G() { Raise.Twice(); Tool.Run(); }\n}\n",
    # imported by MSBuild into every project under src/, not into tools/
    "src/Directory.Build.targets": (
        "<Project>\n  <ItemGroup Condition=\"$(Shared) == 'true'\">\n"
        '    <Using Include="Acme.Shared" />\n  </ItemGroup>\n</Project>\n'
    ),
    "src/Lib/Shared/Tool.cs": (
        "namespace Acme.Shared;\n\npublic static class Tool\n{\n    public static void Run() { }\n}\n"
    ),
    "tools/Tools.csproj": '<Project Sdk="Microsoft.NET.Sdk" />\n',
    "tools/T.cs": "namespace Tools;\n\nclass T\n{\n    void H() { Tool.Run(); }\n}\n",
}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory, prefect_api: str) -> tuple[Path, Path]:
    return build_template(tmp_path_factory.mktemp("csharp"), FILES, shards=2)


def test_project_usings_bind_the_projects_files_only(
    template: tuple[Path, Path], tmp_path: Path, run_cli: Any
) -> None:
    repo, store = copy_built(template, tmp_path)

    def refs(target: str) -> dict[str, Any]:
        code, out, err = run_cli("--repo", str(repo), "--store", store, "--json", "refs", target)
        assert code == 0, err
        return json.loads(out)  # type: ignore[no-any-return]

    twice = refs("Acme.Helpers.Raise.Twice")
    assert [(r["path"], r["startLine"]) for r in twice["bound"]] == [("src/App/Use.cs", 5)]
    make = refs("Acme.Events.Scalar.Make")
    assert [(r["path"], r["startLine"]) for r in make["bound"]] == [("src/App/Use.cs", 5)]
    # Other's project imports neither: its call is no proof
    assert ("src/Other/Call.cs", 5) not in [(r["path"], r["startLine"]) for r in twice["bound"]]
    # src/Directory.Build.targets reaches Other's project, not tools/
    run = refs("Acme.Shared.Tool.Run")
    assert [(r["path"], r["startLine"]) for r in run["bound"]] == [("src/Other/Call.cs", 5)]
    # the project file edited in the worktree: the answer reads it as it is now
    write_files(repo, {"src/App/App.csproj": '<Project Sdk="Microsoft.NET.Sdk" />\n'})
    now = refs("Acme.Helpers.Raise.Twice")
    assert now["freshness"] == "overlay" and now["bound"] == []
