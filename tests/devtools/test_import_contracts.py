"""The import contracts of our own (devtools/import_contracts.py) on a small package: each catches what it says."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import grimp
import pytest

from devtools.import_contracts import (
    AllowedImportsContract,
    NamesOnlyContract,
    NoPrivateNamesContract,
    SealedPackagesContract,
)

FILES = {
    "shop/__init__.py": "from shop.carts import model  # the container may re-export\n",
    "shop/core/__init__.py": "",
    "shop/core/keys.py": "def key(): ...\n",
    "shop/carts/__init__.py": "from shop.carts.model import CART_MAX, Cart, cart_get\n",
    "shop/carts/model.py": "CART_MAX = 3\n_SECRET = 1\nclass Cart: ...\ndef cart_get(): ...\n",
    "shop/orders/__init__.py": "from shop.orders import writes\n",
    "shop/orders/reads.py": "from shop.carts import Cart  # through __init__: fine\nfrom shop.core.keys import key\n",
    "shop/orders/writes.py": "from shop.carts.model import Cart  # reaches past __init__\n",
    "shop/views.py": dedent(
        """\
        from shop.carts import CART_MAX, Cart, cart_get
        import shop.core.keys
        from shop.carts.model import _SECRET
        from shop.carts import model as cart_model
        cart_model._SECRET
        """
    ),
    "shop/pages.py": dedent(
        """\
        import json
        from typing import TYPE_CHECKING
        from django.db import models
        from django.utils import html
        from shop.carts import CART_MAX, Cart
        from shop import orders
        from . import core
        from .core.keys import key
        if TYPE_CHECKING:
            import shop.orders
        Cart.get(1)
        CART_MAX.count(3)
        fetch = Cart.query
        """
    ),
}


@pytest.fixture
def graph(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> grimp.ImportGraph:
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)  # the AST contracts read sources from where lint runs
    return grimp.build_graph("shop", cache_dir=None)


def test_sealed_packages_catch_an_import_past_a_packages_init_and_allow_the_rest(graph: grimp.ImportGraph) -> None:
    contract = SealedPackagesContract("sealed", {}, {"containers": ["shop"], "open": ["core"]})
    check = contract.check(graph, verbose=False)
    assert not check.kept
    assert [(link["importer"], link["imported"]) for link in check.metadata["illegal"]] == [
        ("shop.orders.writes", "shop.carts.model"),
        ("shop.views", "shop.carts.model"),
    ]


def test_sealed_packages_keep_a_listed_violation_ignored(graph: grimp.ImportGraph) -> None:
    ignored = ["shop.orders.writes -> shop.carts.model", "shop.views -> shop.carts.model"]
    contract = SealedPackagesContract(
        "sealed", {}, {"containers": ["shop"], "open": ["core"], "ignore_imports": ignored}
    )
    assert contract.check(graph, verbose=False).kept


def test_no_private_names_catches_a_private_name_imported_or_read_through_a_module(graph: grimp.ImportGraph) -> None:
    check = NoPrivateNamesContract("private", {}, {"packages": ["shop"]}).check(graph, verbose=False)
    assert not check.kept
    assert [(f["module"], f["line"], f["name"]) for f in check.metadata["found"]] == [
        ("shop.views", 3, "shop.carts.model._SECRET"),
        ("shop.views", 5, "shop.carts.model._SECRET"),
    ]


def test_names_only_lets_views_take_errors_types_and_constants_but_not_functions_or_modules(
    graph: grimp.ImportGraph,
) -> None:
    contract = NamesOnlyContract("names", {}, {"importers": ["shop.views"], "sources": ["shop"]})
    check = contract.check(graph, verbose=False)
    assert sorted(f["name"] for f in check.metadata["found"]) == [
        "shop.carts.cart_get",
        "shop.carts.model",
        "shop.carts.model._SECRET",
        "shop.core.keys",
    ]
    allowed = NamesOnlyContract(
        "names",
        {},
        {"importers": ["shop.views"], "sources": ["shop"], "allowed_names": ["cart_get", "model", "_SECRET", "keys"]},
    )
    assert allowed.check(graph, verbose=False).kept


def test_names_only_catches_a_table_read_through_an_item_type_but_not_a_constants_method(
    graph: grimp.ImportGraph,
) -> None:
    options = {"importers": ["shop.pages"], "sources": ["shop"], "allowed_names": ["orders"]}
    assert NamesOnlyContract("names", {}, options).check(graph, verbose=False).kept
    contract = NamesOnlyContract("names", {}, {**options, "forbidden_attributes": ["get", "query", "count"]})
    check = contract.check(graph, verbose=False)
    assert not check.kept
    assert [(c["module"], c["line"], c["name"]) for c in check.metadata["calls"]] == [
        ("shop.pages", 11, "shop.carts.Cart.get"),
        ("shop.pages", 13, "shop.carts.Cart.query"),
    ]  # CART_MAX.count(3) is a constant's method, not a table's


def test_allowed_imports_refuse_what_the_list_does_not_name_and_what_it_carves_out(graph: grimp.ImportGraph) -> None:
    options = {
        "importers": ["shop.pages"],
        "allowed": ["django", "shop.carts", "shop.core"],
        "forbidden": ["django.db", "shop.core.keys"],
    }
    check = AllowedImportsContract("allow", {}, {**options, "allow_stdlib": "true"}).check(graph, verbose=False)
    assert not check.kept
    found = [(f["line"], f["name"]) for f in check.metadata["found"]]
    assert found == [(3, "django.db.models"), (6, "shop.orders"), (8, "shop.core.keys.key")]
    # django.utils, shop.carts' names, the relative shop.core and the TYPE_CHECKING import pass.
    check = AllowedImportsContract("allow", {}, options).check(graph, verbose=False)
    assert sorted(f["name"] for f in check.metadata["found"]) == sorted(
        [*(name for _, name in found), "json", "typing.TYPE_CHECKING"]
    )  # without allow_stdlib the standard library needs naming too
    everything = {**options, "allowed": ["django", "shop", "json", "typing"], "forbidden": []}
    assert AllowedImportsContract("allow", {}, everything).check(graph, verbose=False).kept


def test_a_broken_contract_lists_each_finding_under_its_own_heading(
    graph: grimp.ImportGraph, capsys: pytest.CaptureFixture[str]
) -> None:
    options = {"importers": ["shop.views", "shop.pages"], "sources": ["shop"], "forbidden_attributes": ["get"]}
    contract = NamesOnlyContract("names", {}, options)
    contract.render_broken_contract(contract.check(graph, verbose=False))
    printed = " ".join(capsys.readouterr().out.split())  # the console wraps long lines
    taken, _, calls = printed.partition("A table read or written through an item type")
    assert "Functions or modules taken" in taken
    assert "- shop.views (l.1): shop.carts.cart_get" in taken
    assert "- shop.views (l.2): shop.core.keys" in taken
    assert calls.strip().endswith("- shop.pages (l.11): shop.carts.Cart.get")
