"""The import contracts of our own (devtools/import_contracts.py) on a small package: each catches what it says."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import grimp
import pytest

from devtools.import_contracts import NamesOnlyContract, NoPrivateNamesContract, SealedPackagesContract

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
