"""pytest fixtures: a test's parameter holds the value of the fixture of its
name (indexer/fixtures_python.py, query/link.py). Each case is a small tree
and the exact set of bound call edges it must produce, as in test_flows.py:
``path::caller -> path::callee``."""

from __future__ import annotations

import pytest

from tests.linked import call_graph, linked

APP = "class App:\n    def run(self): pass\n"
CONFTEST = "import pytest\nfrom app import App\n@pytest.fixture\ndef app():\n    return App()\n"
MADE = "tests/conftest.py::app -> app.py::App"
RUN = "tests/test_a.py::test_run -> app.py::App.run"

CASES: dict[str, tuple[dict[str, str], set[str]]] = {
    "conftest_returns": (
        {
            "app.py": APP,
            "tests/conftest.py": CONFTEST,
            "tests/test_a.py": "def test_run(app):\n    app.run()\n",
        },
        {MADE, RUN},
    ),
    "conftest_yields": (
        {
            "app.py": APP,
            "tests/conftest.py": "import pytest\nfrom app import App\n"
            "@pytest.fixture(scope='session')\ndef app():\n    a = App()\n    yield a\n",
            "tests/test_a.py": "def test_run(app):\n    app.run()\n",
        },
        {MADE, RUN},
    ),
    "same_module_after_the_test": (
        {
            "app.py": APP,
            "tests/test_a.py": "import pytest\nfrom app import App\n"
            "def test_run(app):\n    app.run()\n@pytest.fixture\ndef app():\n    return App()\n",
        },
        {"tests/test_a.py::app -> app.py::App", RUN},
    ),
    "conftest_two_folders_up": (
        {
            "app.py": APP,
            "tests/conftest.py": CONFTEST,
            "tests/unit/conftest.py": "import pytest\n@pytest.fixture\ndef other():\n    return 1\n",
            "tests/unit/test_a.py": "def test_run(app):\n    app.run()\n",
        },
        {MADE, "tests/unit/test_a.py::test_run -> app.py::App.run"},
    ),
    "named_fixture": (
        {
            "app.py": APP,
            "tests/conftest.py": "import pytest\nfrom app import App\n"
            "@pytest.fixture(name='app')\ndef make_app():\n    return App()\n",
            "tests/test_a.py": "def test_run(app):\n    app.run()\n",
        },
        {"tests/conftest.py::make_app -> app.py::App", RUN},
    ),
    "fixture_asks_for_a_fixture": (
        {
            "app.py": APP,
            "tests/conftest.py": CONFTEST + "@pytest.fixture\ndef running(app):\n    app.run()\n",
        },
        {MADE, "tests/conftest.py::running -> app.py::App.run"},
    ),
    "test_method_of_a_test_class": (
        {
            "app.py": APP,
            "tests/conftest.py": CONFTEST,
            "tests/test_a.py": "class TestApp:\n    def test_run(self, app):\n        app.run()\n",
        },
        {MADE, "tests/test_a.py::TestApp.test_run -> app.py::App.run"},
    ),
    # not fixtures: a parametrized name, a default, a helper, a test outside
    # a test module, a fixture pytest provides
    "not_fixtures": (
        {
            "app.py": APP,
            "tests/conftest.py": CONFTEST + "@pytest.fixture\ndef request():\n    return App()\n",
            "tests/test_a.py": "import pytest\n"
            "@pytest.mark.parametrize('app', [1])\ndef test_p(app):\n    app.run()\n"
            "def test_d(app=None):\n    app.run()\n"
            "def helper(app):\n    app.run()\n"
            "def test_r(request):\n    request.run()\n",
            "tests/checks.py": "def test_run(app):\n    app.run()\n",
        },
        {MADE, "tests/conftest.py::request -> app.py::App"},
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_fixture_edges(name: str) -> None:
    files, expected = CASES[name]
    assert call_graph(dict(files), main="") == expected


def test_a_test_parameter_is_a_reference_of_the_fixture_it_asks_for() -> None:
    """`refs server` of a conftest fixture lists the tests that take it; a
    renamed fixture (`name="app"`) is found through its name; a parameter
    a parametrize mark kept in a variable gives (`@possible_keys`) and a
    fixture taking its own name (it overrides another) are none."""
    files: dict[str, str | bytes] = {
        "tests/conftest.py": "import pytest\n"
        "@pytest.fixture(name='app')\ndef make_app():\n    return 1\n"  # 2
        "@pytest.fixture\ndef server(app):\n    return 2\n"  # 5
        "@pytest.fixture\ndef httpbin(httpbin):\n    return httpbin\n",  # 8
        "tests/unit/test_a.py": "import pytest\n"
        "possible = pytest.mark.parametrize('key', [1])\n"
        "class TestX:\n"
        "    def test_f(self, server, app, tmp_path):\n"  # 4
        "        assert server\n"
        "@possible\ndef test_g(key, httpbin):\n    pass\n",  # 7
    }
    got = {
        (e["path"], e["start_line"], e["target"]): (
            link.binding,
            f"{link.symbol['path']}::{link.symbol['qualname']}" if link.symbol else None,
        )
        for e, link in linked(files)
        if e["kind"] == "use" and e["target"] in ("server", "app", "key", "httpbin", "tmp_path")
    }
    assert got == {
        ("tests/conftest.py", 6, "app"): ("bound", "tests/conftest.py::make_app"),
        ("tests/unit/test_a.py", 4, "server"): ("bound", "tests/conftest.py::server"),
        ("tests/unit/test_a.py", 4, "app"): ("bound", "tests/conftest.py::make_app"),
        ("tests/unit/test_a.py", 7, "httpbin"): ("bound", "tests/conftest.py::httpbin"),
    }
