"""Context packages (freshindex/query/context.py) on a repository whose graph is known.

shop/orders.py   Order.total  <- the target
                 Order.total calls shop/pricing.py price() (exported) and _round()
shop/api.py      checkout() calls Order.total            (same package: shop/)
web/views.py     page() calls checkout()                 (another package: web/)
tests/test_orders.py test_total() calls Order.total
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pygit2
import pytest

from freshindex.catalog.reader import IndexVersion
from freshindex.query import context as context_pkg
from freshindex.query.evaluation import evaluate
from freshindex.query.overlay import SUMMARISED
from freshindex.storage import open_store
from tests.repos import build_template, copy_built

FILES: dict[str, str | bytes] = {
    "shop/pyproject.toml": '[project]\nname = "shop"\n',
    "shop/__init__.py": "",
    "shop/pricing.py": (
        "def price(amount):\n"
        '    """The price of an amount, taxes included.\n'
        "\n"
        '    Rounded to cents."""\n'
        "    return _round(amount * 1.2)\n"
        "\n"
        "\n"
        "def _round(x):\n"
        "    return round(x, 2)\n"
    ),
    "shop/orders.py": (
        "from shop.pricing import price\n"
        "\n"
        "\n"
        "class Order:\n"
        "    def __init__(self, lines):\n"
        "        self.lines = lines\n"
        "\n"
        "    def total(self):\n"
        '        """What the order costs."""\n'
        "        return sum(price(x) for x in self.lines)\n"
    ),
    "shop/api.py": (
        "from shop.orders import Order\n"
        "\n"
        "\n"
        "def checkout(lines):\n"
        "    order = Order(lines)\n"
        "    return order.total()\n"
    ),
    "web/views.py": "from shop.api import checkout\n\n\ndef page():\n    return checkout([1, 2])\n",
    "tests/test_orders.py": (
        "from shop.orders import Order\n\n\ndef test_total():\n    assert Order([1]).total() == 1.2\n"
    ),
}


@pytest.fixture(scope="module")
def template(prefect_api: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return build_template(tmp_path_factory.mktemp("context"), FILES)


@pytest.fixture
def repo_store(template: tuple[Path, Path], tmp_path: Path) -> tuple[Path, str]:
    return copy_built(template, tmp_path)


def package(
    repo: Path, store: str, target: str | None, budget: int = 4000, **kw: Any
) -> dict[str, Any]:
    answerer = evaluate(pygit2.Repository(str(repo)), IndexVersion.current(open_store(store)))
    doc = answerer.envelope.to_json()
    doc.update(context_pkg.build(answerer, target, budget, **kw))
    return doc


def order(doc: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(i["tier"], i["name"], i["form"]) for i in doc["items"]]


def test_expansion_follows_the_article_priority(repo_store: tuple[Path, str]) -> None:
    repo, store = repo_store
    doc = package(repo, store, "Order.total")
    got = order(doc)
    assert got[0] == ("target", "Order.total", "body")
    assert doc["items"][0]["role"] == "definition"
    # results locate the items; their text is delivered once, in the items
    assert doc["results"] == [{k: v for k, v in i.items() if k != "text"} for i in doc["items"]]
    tiers = [t for t, _n, _f in got]
    # the budget fills in tier order
    rank = {t: i for i, t in enumerate(context_pkg.TIER_NAMES)}
    assert tiers == sorted(tiers, key=rank.__getitem__)
    # the exported callee's contract: its signature and first doc paragraph
    contract = next(i for i in doc["items"] if i["tier"] == "contract" and i["name"] == "price")
    assert "def price(amount)" in contract["text"]
    assert "The price of an amount, taxes included." in contract["text"]
    assert "Rounded to cents" not in contract["text"]
    names = {(i["role"], i["name"]) for i in doc["items"]}
    assert ("caller", "checkout") in names  # bound through `order = Order(lines)`
    assert ("test", "test_total") in names
    assert ("callee", "price") in names
    assert ("callee", "_round") in names  # distance 2, through price
    assert ("caller", "page") in names  # distance 2, from another package
    page = next(i for i in doc["items"] if i["name"] == "page")
    assert (page["tier"], page["distance"]) == ("high-risk", 2)
    assert ("config", "shop/pyproject.toml") in names
    assert doc["items"][-1]["tier"] == "history"
    assert "initial" in doc["items"][-1]["text"]
    # every fragment carries its proof, cut from the bytes now in the worktree
    for item in doc["items"]:
        if item["form"] != "history":
            data = (repo / item["path"]).read_bytes()
            assert item["blob"] == str(pygit2.hash(data))
            lines = data.decode().splitlines()
            if item["form"] in ("body", "lines"):
                assert item["text"] == "\n".join(lines[item["startLine"] - 1 : item["endLine"]])


@pytest.mark.parametrize("budget", [1, 7, 30, 60, 120, 400])
def test_never_over_budget(repo_store: tuple[Path, str], budget: int) -> None:
    repo, store = repo_store
    doc = package(repo, store, "Order.total", budget)
    assert doc["usedTokens"] <= budget
    assert sum(i["tokens"] for i in doc["items"]) == doc["usedTokens"]
    placed = {(i["tier"], i["name"]) for i in doc["items"]}
    assert all(g["reason"] for g in doc["leftOut"])
    assert doc["omitted"] == len(doc["leftOut"])
    if budget <= 30:
        # the target's body does not fit: its summary stands in
        assert ("target", "Order.total") in placed or doc["leftOut"][0]["name"] == "Order.total"


def test_summaries_are_reused_while_the_blob_is_unchanged(repo_store: tuple[Path, str]) -> None:
    repo, store = repo_store
    before = SUMMARISED["summaries"]
    package(repo, store, "Order.total", 260)
    assert SUMMARISED["summaries"] == before  # clean: every summary from the index
    pricing = repo / "shop/pricing.py"
    pricing.write_text(pricing.read_text().replace("1.2", "1.25"))
    doc = package(repo, store, "Order.total", 260)
    assert SUMMARISED["summaries"] == before + 2  # the changed file's two definitions
    package(repo, store, "Order.total", 260)
    assert SUMMARISED["summaries"] == before + 2  # the same bytes again: cached
    contract = next(i for i in doc["items"] if i["name"] == "price")
    assert contract["origin"] == "overlay"


def test_fragments_are_reanchored_after_edits_and_deleted_nodes_are_absent(
    repo_store: tuple[Path, str],
) -> None:
    repo, store = repo_store
    orders = repo / "shop/orders.py"
    orders.write_text("# moved down by two lines\n\n" + orders.read_text())
    (repo / "web/views.py").unlink()
    doc = package(repo, store, "Order.total")
    target = doc["items"][0]
    assert (target["startLine"], target["origin"]) == (10, "overlay")
    assert target["text"].strip().startswith("def total(self):")
    assert all(i["path"] != "web/views.py" for i in doc["items"])
    assert all(g["path"] != "web/views.py" for g in doc["leftOut"])


def test_a_file_changed_after_the_answer_is_reread_or_dropped(
    repo_store: tuple[Path, str],
) -> None:
    """The answer was computed, then the file changed: the definition is
    found again in the new bytes, or its fragment is dropped with a reason."""
    repo, store = repo_store
    answerer = evaluate(pygit2.Repository(str(repo)), IndexVersion.current(open_store(store)))
    api = repo / "shop/api.py"
    api.write_text("\n\n\n" + api.read_text())
    pricing = repo / "shop/pricing.py"
    pricing.write_text("def cost(amount):\n    return amount\n")
    doc = context_pkg.build(answerer, "Order.total", 4000)
    checkout = next(i for i in doc["items"] if i["name"] == "checkout" and i["form"] == "body")
    assert checkout["startLine"] == 7
    assert checkout["text"].startswith("def checkout(lines):")
    dropped = [g for g in doc["leftOut"] if g["name"] == "price"]
    assert dropped and "no longer defines price" in dropped[0]["reason"]


def test_changed_targets_the_definitions_being_edited(repo_store: tuple[Path, str]) -> None:
    repo, store = repo_store
    pricing = repo / "shop/pricing.py"
    pricing.write_text(pricing.read_text().replace("round(x, 2)", "round(x, 3)"))
    doc = package(repo, store, None, changed=True)
    assert [t["name"] for t in doc["targets"]] == ["_round"]
    assert ("caller", "price") in {(i["role"], i["name"]) for i in doc["items"]}


def test_cli_markdown_and_json(repo_store: tuple[Path, str], run_cli: Any) -> None:
    repo, store = repo_store
    code, out, _err = run_cli("--repo", str(repo), "--store", store, "context", "shop/api.py")
    assert code == 0
    assert out.startswith("# Context: checkout")
    assert "```" in out and "## target: shop/api.py" in out
    code, out, _err = run_cli(
        "--repo", str(repo), "--store", store, "--json", "context", "price", "--budget", "50"
    )
    doc = json.loads(out)
    assert doc["tokenizer"].startswith("estimate")
    assert doc["usedTokens"] <= 50
    code, _out, err = run_cli(
        "--repo", str(repo), "--store", store, "context", "price", "--tokenizer", "nope"
    )
    assert code == 2 and "module:function" in err


def test_files_importing_the_target_file_are_included(repo_store: tuple[Path, str]) -> None:
    """A test that imports the target's module without calling the target is
    still the target's test (the article: tests that import or call it)."""
    repo, store = repo_store
    doc = package(repo, store, "shop/pricing.py:8")  # _round
    got = {(i["role"], i["path"]) for i in doc["items"]}
    assert ("importer", "shop/orders.py") not in got  # reached by the walk already (a caller)
    # Order(...) runs Order.__init__: api.py is a bound caller of it, not just an importer
    doc = package(repo, store, "Order.__init__")
    roles = {(i["role"], i["path"], i["name"]) for i in doc["items"]}
    assert ("caller", "shop/api.py", "checkout") in roles


BUDGETS = [200, 300, 500, 800, 1200, 2000, 3500, 6000, 10000, 20000]


def test_delivered_markdown_keeps_the_budget_on_every_channel(
    repo_store: tuple[Path, str], run_cli: Any
) -> None:
    """What an agent receives is at most the budget plus the documented
    heading overhead, by the package's own tokenizer: the CLI's markdown and
    the HTTP service's `markdown` field (MCP's text: tests/integration/test_mcp.py)."""
    from freshindex.query.rendering import OVERHEAD_TOKENS
    from freshindex.query.tokens import DEFAULT_COUNTER
    from freshindex.service.warm import QueryService

    repo, store = repo_store
    service = QueryService(pygit2.Repository(str(repo)), open_store(store))
    for budget in BUDGETS:
        for target in ("Order.total", "shop/orders.py"):
            code, out, err = run_cli("--repo", str(repo), "--store", store, "context", target,
                                     "--budget", str(budget))  # fmt: skip
            assert code == 0, err
            assert DEFAULT_COUNTER.count(out) <= budget + OVERHEAD_TOKENS, (budget, target)
            doc = service.context(target, budget)
            assert doc["usedTokens"] <= budget
            assert DEFAULT_COUNTER.count(doc["markdown"]) <= budget + OVERHEAD_TOKENS
            assert doc["markdown"] == out


def test_changed_puts_what_a_rename_breaks_first(repo_store: tuple[Path, str]) -> None:
    """An uncommitted rename: the callers of the old name, bound in the index
    and still naming it now, come first, with their lines, in every budget
    that holds them."""
    repo, store = repo_store
    pricing = repo / "shop/pricing.py"
    pricing.write_text(pricing.read_text().replace("def price(", "def price_of("))
    for budget in (300, 4000):
        doc = package(repo, store, None, budget=budget, changed=True)
        breaks = [i for i in doc["items"] if i["role"] == "breaks"]
        assert [(i["path"], i["tier"]) for i in breaks] == [
            ("shop/orders.py", "high-risk"),
            ("shop/orders.py", "high-risk"),
        ]
        assert {i["name"] for i in breaks} == {"<module>", "Order.total"}
        assert all("price, which the change removed or renamed" in i["why"] for i in breaks)
        first_risk = next(i for i in doc["items"] if i["tier"] == "high-risk")
        assert first_risk["role"] == "breaks"


def test_the_map_tier_names_more_files_in_rank_order(repo_store: tuple[Path, str]) -> None:
    """After the targets and what they touch, the budget left names files by
    rank (bound references, history, tests), one compact entry each."""
    repo, store = repo_store
    doc = package(repo, store, "shop/pricing.py:1", budget=4000)
    maps = [i for i in doc["items"] if i["tier"] == "map"]
    named = {i["path"] for i in doc["items"]}
    assert maps, order(doc)
    assert all(i["form"] == "map" and i["text"] for i in maps)
    assert len(named) == len(
        {i["path"] for i in doc["items"] if i["tier"] != "map"} | {i["path"] for i in maps}
    )
    # a file named by another tier is not named again in the map
    others = {i["path"] for i in doc["items"] if i["tier"] != "map"}
    assert not others & {i["path"] for i in maps}
